/**
 * How `inferencecache dump` writes its stream, in YAML or JSON: a comment with the dump's headline and
 * notes, then one typed list per Kind. The objects are already as the dump writes them
 * (`cluster/kinds/dump-policy.ts`); this only lays them out, piece by piece, so that the command can
 * write a large dump in chunks and stop between two objects when it is interrupted. A stream cut
 * short ends with a marker that says so, which `doctor -f` refuses ({@link incompleteDumpReason}).
 *
 * @module
 */

import { Document, parse, visit, type Scalar } from 'yaml';

/** What a dump holds: its headline (`dumpHeadline`), notes for a reader, and its typed lists in order. */
export interface DumpDocument {
  readonly headline: string;
  readonly notes: readonly string[];
  readonly lists: readonly Record<string, unknown>[];
}

/**
 * A dump being written: its pieces in order (each ends at an object's end), and, at any point
 * between two pieces, the text that closes the stream as one marked incomplete.
 */
export interface DumpStream {
  readonly pieces: Iterable<string>;
  /** What ends the stream after the pieces taken so far, saying why it is incomplete. */
  readonly cut: (reason: string) => string;
}

/** The comment line that marks a YAML dump cut short, before its reason. */
const YAML_INCOMPLETE = '# inferencecache dump incomplete: ';

/**
 * The last line of a complete YAML dump. A YAML stream cut anywhere (a stalled pipe, a full disk, a
 * killed process) can still parse, its last object shortened; without this line `doctor -f` refuses it.
 */
const YAML_COMPLETE = '# inferencecache dump complete\n';

/** How every dump's first line begins (see `dumpHeadline`): the words, then the time it was taken. */
const HEADLINE_START = /^# inferencecache dump taken \d{4}-\d{2}-\d{2}T/;

/** The key that marks a JSON dump cut short. */
const JSON_INCOMPLETE = '$incomplete';

/** One line, whatever the text held (a comment cannot span lines). */
function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ');
}

/** JSON with the exact big integers of the API kept exact, on one line. */
function exactJson(value: unknown): string {
  // JSON.rawJSON (Node 21 and later) writes the digits as they are; the TypeScript library lacks it yet.
  const { rawJSON } = JSON as unknown as { rawJSON: (text: string) => unknown };
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? rawJSON(v.toString()) : v));
}

/**
 * The dump as one JSON `List` of typed lists, the comment in `$comment`, one object per line. It is
 * compact (no indentation): pretty-printing made a dump of 5,000 pods 18.8 MB, a third of it spaces.
 */
export function dumpJson(dump: DumpDocument): DumpStream {
  const { headline, notes, lists } = dump;
  /** Where the pieces have got to: before the lists, inside one (its items open), between two, done. */
  let at: 'start' | 'in-list' | 'between' | 'done' = 'start';
  const open = (incomplete?: string) =>
    `{${exactJson('$comment')}:${exactJson(oneLine([headline, ...notes].join(' | ')))},` +
    (incomplete === undefined ? '' : `${exactJson(JSON_INCOMPLETE)}:${exactJson(oneLine(incomplete))},`) +
    '"apiVersion":"v1","kind":"List","metadata":{},"items":[';
  // Each piece sets where the stream stands once it is taken, before it is handed out.
  function* pieces(): Generator<string> {
    at = 'between';
    yield `${open()}\n`;
    for (const [i, { items, ...list }] of lists.entries()) {
      // The list's fields, its items left open: `{"apiVersion":…,"kind":"PodList","items":[`.
      const head = exactJson({ ...list, items: [] }).slice(0, -2);
      at = 'in-list';
      yield `${i === 0 ? '' : ',\n'}${head}`;
      for (const [j, item] of (items as unknown[]).entries()) yield `${j === 0 ? '\n' : ',\n'}${exactJson(item)}`;
      at = 'between';
      yield ']}';
    }
    at = 'done';
    yield '\n]}\n';
  }
  const cut = (reason: string): string => {
    switch (at) {
      case 'start':
        return `${open(reason)}]}\n`;
      case 'in-list':
        return `]}\n],${exactJson(JSON_INCOMPLETE)}:${exactJson(oneLine(reason))}}\n`;
      case 'between':
        return `\n],${exactJson(JSON_INCOMPLETE)}:${exactJson(oneLine(reason))}}\n`;
      case 'done':
        return '';
    }
  };
  return { pieces: pieces(), cut };
}

/** Plain scalars that YAML 1.1 or 1.2 could read as something other than a string, for a closer look. */
const MAYBE_NOT_A_STRING = /^(?:[-+.~=<0-9A-Za-z_:]{1,1000}|\d[-0-9:.Tt \t+Zz]{1,60})$/;

/** Strings already looked at, and whether they must be quoted (bounded: most repeat, few are candidates). */
const quotedBefore = new Map<string, boolean>();

/**
 * Whether a string written plain would be read as something else by some YAML reader the dump meets:
 * kubectl and PyYAML read YAML 1.1 (`y`, `on`, `0755`, `1:20`, a date), the `yaml` package 1.2
 * (`0o17`), and PyYAML refuses `=` and `<<` as values.
 */
function mustQuote(text: string): boolean {
  if (!MAYBE_NOT_A_STRING.test(text)) return false;
  const known = quotedBefore.get(text);
  if (known !== undefined) return known;
  let quote = text === '=' || text === '<<';
  if (!quote) {
    try {
      quote = parse(text, { version: '1.1' }) !== text || parse(text) !== text;
    } catch {
      quote = true;
    }
  }
  if (quotedBefore.size < 10_000) quotedBefore.set(text, quote);
  return quote;
}

/** One object as one YAML document, every string that a YAML 1.1 or 1.2 reader would take for something else quoted. */
function yamlDocument(value: unknown): string {
  const document = new Document(value);
  visit(document, {
    Scalar(_key, node: Scalar) {
      if (typeof node.value === 'string' && mustQuote(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return `---\n${document.toString({ lineWidth: 0 })}`;
}

/**
 * The dump in YAML: each Kind an empty typed list (the Kind was read) followed by its objects one
 * document each, so that a reader parses one object at a time (see `MAX_YAML_DOCUMENT_CHARS`).
 * kubectl, PyYAML and the `yaml` package read it alike: no string is left plain where YAML 1.1 would
 * read it as a boolean, a number, a date or null.
 */
export function dumpYaml(dump: DumpDocument): DumpStream {
  const { headline, notes, lists } = dump;
  const comment = [headline, ...notes].map((line) => `# ${oneLine(line)}\n`).join('');
  let at: 'start' | 'started' | 'done' = 'start';
  function* pieces(): Generator<string> {
    at = 'started';
    yield comment;
    for (const { items, ...list } of lists) {
      yield yamlDocument({ ...list, items: [] });
      for (const item of items as unknown[]) yield yamlDocument(item);
    }
    at = 'done';
    yield YAML_COMPLETE;
  }
  const cut = (reason: string): string => (at === 'done' ? '' : `${at === 'start' ? comment : ''}${YAML_INCOMPLETE}${oneLine(reason)}\n`);
  return { pieces: pieces(), cut };
}

/**
 * Why a dump's text says it is incomplete, or undefined: the marker a dump cut short ends with (a
 * comment line in YAML, `$incomplete` in the JSON `List`), or, in YAML, the absence of the line that
 * closes a complete dump (JSON cut anywhere does not parse). `doctor -f` refuses such a file rather
 * than judge the part of a cluster that happened to be written.
 */
export function incompleteDumpReason(text: string, document?: unknown): string | undefined {
  if (document !== undefined) {
    const fields = typeof document === 'object' && document !== null && !Array.isArray(document) ? document : {};
    const reason = (fields as Record<string, unknown>)[JSON_INCOMPLETE];
    return typeof reason === 'string' ? reason : undefined;
  }
  const at = text.lastIndexOf(`\n${YAML_INCOMPLETE}`);
  const start = at === -1 ? (text.startsWith(YAML_INCOMPLETE) ? 0 : -1) : at + 1;
  if (start !== -1) {
    const end = text.indexOf('\n', start);
    return text.slice(start + YAML_INCOMPLETE.length, end === -1 ? undefined : end);
  }
  if (HEADLINE_START.test(text) && !text.endsWith(`\n${YAML_COMPLETE}`))
    return 'it does not end with the line that closes a complete dump, so it was cut short';
  return undefined;
}
