/**
 * Kubernetes objects from the text of one operator's file (`doctor -f`): YAML or JSON, one document or
 * many, `List` kinds (`kubectl get -o yaml`) and typed lists (`PodList`, as `inferencecache dump`
 * writes them), `helm template` output. Hostile text ends in one {@link InputError} naming the file: a
 * YAML alias bomb, nesting deeper than any Kubernetes object, a document that is no object, text that
 * is not UTF-8.
 *
 * @module
 */

import { Composer, Parser, isMap, isNode, isSeq } from 'yaml';
import { describeError } from '../text/errors.ts';
import { incompleteDumpReason } from './dump-stream.ts';
import { InputError } from './input-error.ts';
import { firstDuplicateKey } from './json-duplicate-keys.ts';

/** One object of the files, with `apiVersion` and `kind` (filled in from its typed list when the item lacks them). */
export interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly value: Readonly<Record<string, unknown>>;
  /** Where it came from, for warnings: the file and the document's number in it. */
  readonly source: string;
  /** Whether it came from an `inferencecache dump`, which writes every namespaced object with its namespace. */
  readonly fromDump?: boolean;
  /** Where its text stands, for reports that point at lines (SARIF); absent for standard input. */
  readonly at?: SourceLine;
}

/**
 * The line an object's text begins on in an operator's file: what a pull-request annotation points
 * at. For `helm template` output, also the chart template its `# Source:` comment names, since that
 * is the file a reviewer would change.
 */
export interface SourceLine {
  /** The path as the operator gave it to `-f` (a folder's file: the folder joined with its name). */
  readonly file: string;
  /** 1-based: the first line of the object's own text (its YAML document, or its item of a YAML `List`); 1 in a JSON file. */
  readonly line: number;
  /** The template of a `helm template` document (`mychart/templates/server.yaml`), when it names one. */
  readonly template?: string;
}

/** A typed list met in the files (`PodList`): the Kind it holds is given, even when it holds nothing. */
export interface GivenList {
  readonly apiVersion: string;
  /** The Kind of its items (`Pod` for a `PodList`). */
  readonly kind: string;
}

/** What one file held. */
export interface ManifestDocuments {
  readonly objects: ManifestObject[];
  readonly lists: GivenList[];
  /** The time an `inferencecache dump` recorded in its leading comment, when the file is one. */
  readonly dumpTakenAt?: Date;
  /** The namespace an `inferencecache dump` was taken of (its headline says), `''` for all; undefined for any other file. */
  readonly dumpScope?: string;
}

/**
 * Deeper than any Kubernetes object nests (a Pod's deepest fields are about 15 levels down); deeper
 * input is refused rather than walked.
 */
export const MAX_DEPTH = 64;

/** How long YAML parsing runs before it lets other work in. */
const YIELD_EVERY_MS = 50;

/** How many `List` levels may hold one another (`kubectl get -o json` of several kinds is one). */
const MAX_LIST_NESTING = 3;

/** The leading line of a dump, without its `# ` (see `dumpHeadline`), and what it records. */
const DUMP_HEADLINE = /^inferencecache dump taken (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z) /;

/**
 * The first line of a dump: when it was taken, by which doctor, of which context and namespace. The
 * time leads, in UTC, so that `doctor -f` finds it again (see {@link dumpTakenAt}).
 */
export function dumpHeadline(takenAt: Date, version: string, context: string, namespace: string): string {
  const scope = namespace === '' ? 'all namespaces' : `namespace ${namespace}`;
  return `inferencecache dump taken ${takenAt.toISOString()} by inferencecache ${version} from context ${JSON.stringify(context)}, ${scope}`;
}

/** What a dump's headline says it covers: `''` for all namespaces, else the one namespace. */
const DUMP_SCOPE = /, (?:all namespaces|namespace (\S+))$/;

function dumpScope(line: string): string | undefined {
  if (!DUMP_HEADLINE.test(line)) return undefined;
  const m = DUMP_SCOPE.exec(line);
  return m === null ? undefined : (m[1] ?? '');
}

/** When a dump was taken and what it covers, from its headline; an empty record for any other line. */
function dumpFacts(line: string | undefined): { dumpTakenAt?: Date; dumpScope?: string } {
  if (line === undefined) return {};
  const at = dumpTime(line);
  const scope = dumpScope(line);
  return { ...(at === undefined ? {} : { dumpTakenAt: at }), ...(scope === undefined ? {} : { dumpScope: scope }) };
}

function dumpTime(line: string): Date | undefined {
  const m = DUMP_HEADLINE.exec(line);
  if (m === null) return undefined;
  const at = new Date(m[1] as string);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** The headline of a YAML dump: its first line, a comment. */
function yamlHeadline(text: string): string | undefined {
  const first = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  return first.startsWith('# ') ? first.slice(2) : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks the nesting depth without recursion, and turns integers the YAML parser gave as bigints back
 * into numbers where a number holds them exactly (as the API client's JSON parsing does).
 */
function normalise(root: unknown, where: string): unknown {
  const fix = (v: unknown): unknown =>
    typeof v === 'bigint' && v >= Number.MIN_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER ? Number(v) : v;
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEPTH) throw new InputError(`${where} nests deeper than ${MAX_DEPTH} levels, which no Kubernetes object does`);
    const entries: Record<string | number, unknown> = value as Record<string | number, unknown>;
    for (const key of Object.keys(entries)) {
      entries[key] = fix(entries[key]);
      stack.push({ value: entries[key], depth: depth + 1 });
    }
  }
  return fix(root);
}

/**
 * Adds one document's objects (a List's items, recursively) to `out`. `at` is where the document
 * begins; `itemLines` the line of each item of a top-level `List`, when the parser knows them.
 */
function collect(
  doc: unknown,
  where: string,
  out: { objects: ManifestObject[]; lists: GivenList[] },
  at: SourceLine | undefined,
  itemLines: readonly (number | undefined)[] = [],
  nesting = 0,
): void {
  if (doc === null || doc === undefined) return;
  if (!isRecord(doc)) throw new InputError(`${where} is not a Kubernetes object (a mapping with apiVersion and kind)`);
  const { apiVersion, kind, items } = doc;
  if (typeof kind !== 'string' || kind === '') throw new InputError(`${where} has no kind`);
  if (kind.endsWith('List') && Array.isArray(items)) {
    if (nesting >= MAX_LIST_NESTING) throw new InputError(`${where} nests Lists more than ${MAX_LIST_NESTING} deep`);
    const typed =
      kind !== 'List' && typeof apiVersion === 'string' && apiVersion !== '' ? { apiVersion, kind: kind.slice(0, -4) } : undefined;
    if (typed !== undefined) out.lists.push(typed);
    (items as unknown[]).forEach((item, i) => {
      const filled = typed !== undefined && isRecord(item) ? { apiVersion: typed.apiVersion, kind: typed.kind, ...item } : item;
      const line = itemLines[i];
      collect(filled, `${where}, item ${i}`, out, at === undefined || line === undefined ? at : { ...at, line }, [], nesting + 1);
    });
    return;
  }
  if (typeof apiVersion !== 'string' || apiVersion === '')
    throw new InputError(`${where} (kind ${JSON.stringify(kind)}) has no apiVersion`);
  out.objects.push({ apiVersion, kind, value: doc, source: where, ...(at === undefined ? {} : { at }) });
}

/** The documents with each object marked as a dump's when the file is one. */
function fromDump(read: ManifestDocuments): ManifestDocuments {
  if (read.dumpScope === undefined) return read;
  return { ...read, objects: read.objects.map((o) => ({ ...o, fromDump: true })) };
}

/** Whether the text is JSON rather than YAML: its first character that is not a space opens an object or array. */
function looksLikeJson(text: string): boolean {
  const m = /^\s*([{[])/.exec(text);
  return m !== null;
}

function parseJsonDocument(text: string, name: string): { doc: unknown; headline?: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
      typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && /^-?\d+$/.test(context.source)
        ? BigInt(context.source)
        : value,
    );
  } catch (err) {
    throw new InputError(`${name} is not valid JSON: ${describeError(err)}`);
  }
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== undefined)
    throw new InputError(
      `${name} is not valid: line ${duplicate.line} gives the key ${JSON.stringify(duplicate.key)} a second time in one object`,
    );
  const incomplete = incompleteDumpReason(text, doc);
  if (incomplete !== undefined) throw new InputError(`${name} is an incomplete dump (${incomplete}): take the dump again`);
  const comment = isRecord(doc) ? doc['$comment'] : undefined;
  // The comment holds the headline and the notes, joined by ' | ' (see `dumpJson`).
  return typeof comment === 'string' ? { doc, headline: comment.split(' | ')[0] ?? '' } : { doc };
}

/**
 * The most characters one YAML document may hold. Parsing YAML builds a syntax tree of about a hundred
 * times the text before any object exists (1.7 GB for a 15 MiB `kubectl get pods -o yaml` measured
 * here), so only documents are parsed whole, and none larger than this: a Kubernetes object is at
 * most 1.5 MiB (etcd's limit), and a larger List reads as JSON at a fraction of the cost.
 */
export const MAX_YAML_DOCUMENT_CHARS = 2 * 1024 * 1024;

/**
 * The most characters one YAML file may hold. YAML costs about ten times what JSON costs per byte
 * (15 MiB of pods one per document: 7.9 s and 342 MB, against 0.95 s as JSON), so the manifest cap,
 * sized for JSON dumps of the Kubernetes envelope, would let a YAML file hold the run for minutes:
 * larger input is asked for as JSON (`inferencecache dump -o json`, `kubectl get -o json`).
 */
export const MAX_YAML_CHARS = 16 * 1024 * 1024;

/** Where a YAML document begins: `---` at the start of a line, alone or before a space (YAML 1.2). */
const DOCUMENT_START = /^---(?=[ \t\r]|$)/gm;

/**
 * The text cut before each `---` line: one document each (the text before the first marker is a
 * document too). A `---` at the start of a line always starts a document, even inside what would
 * otherwise be a block scalar, so the cut never splits one.
 */
function* yamlPieces(text: string): Generator<{ piece: string; at: number }> {
  let from = 0;
  for (const m of text.matchAll(DOCUMENT_START)) {
    if (m.index > from) yield { piece: text.slice(from, m.index), at: from };
    from = m.index;
  }
  if (from < text.length) yield { piece: text.slice(from), at: from };
}

/** Where a YAML document's object begins: its line, the template `helm template` names for it, its items' lines. */
interface DocumentPlace {
  readonly line: number;
  readonly template?: string;
  readonly itemLines: readonly (number | undefined)[];
}

/** The comment `helm template` writes above each document: the chart template it was rendered from. */
const HELM_SOURCE = /^# Source: (\S[^\r\n]*?)\s*$/;

/** The chart template a document's leading comments name, if one does (only comments and `---` before it). */
function templateOf(piece: string): string | undefined {
  for (const line of piece.split('\n', 8)) {
    const m = HELM_SOURCE.exec(line);
    if (m !== null) return m[1];
    if (!(line.startsWith('#') || line.startsWith('---') || line.trim() === '')) return undefined;
  }
  return undefined;
}

/**
 * The line of each offset of `piece`, which begins on line `first`: one walk through the piece for
 * offsets in increasing order (a List's items), as the parser gives them.
 */
function linesAt(piece: string, first: number, offsets: readonly (number | undefined)[]): (number | undefined)[] {
  let line = first;
  let counted = 0;
  return offsets.map((offset) => {
    if (offset === undefined) return undefined;
    if (offset < counted) return first + breaksIn(piece, 0, offset);
    line += breaksIn(piece, counted, offset);
    counted = offset;
    return line;
  });
}

/** Counts the line breaks of `text` from `from` up to `to`. */
function breaksIn(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The offsets of the items of a top-level `List` document (`items:` a sequence), in the piece. */
function itemOffsets(contents: unknown): (number | undefined)[] {
  if (!isMap(contents)) return [];
  const items = contents.get('items', true);
  if (!isSeq(items)) return [];
  return items.items.map((item) => (isNode(item) ? item.range?.[0] : undefined));
}

/** Each YAML document of the text in turn, parsed one at a time so that only one is ever whole in memory. */
function* yamlDocuments(text: string, name: string): Generator<{ doc: unknown; where: string; place: DocumentPlace }> {
  let n = 0;
  // The line each piece begins on, counted as the pieces go by so that the text is walked once.
  let line = 1;
  let counted = 0;
  try {
    for (const { piece, at } of yamlPieces(text)) {
      line += breaksIn(text, counted, at);
      counted = at;
      if (piece.length > MAX_YAML_DOCUMENT_CHARS) {
        throw new InputError(
          `${name}: the YAML document at line ${line} holds ${piece.length} characters, more than the ${MAX_YAML_DOCUMENT_CHARS} the doctor parses in one YAML document (give a large List as JSON, e.g. kubectl get -o json, or one object per document, as inferencecache dump writes)`,
        );
      }
      const template = templateOf(piece);
      for (const document of new Composer({ merge: true, intAsBigInt: true, uniqueKeys: true }).compose(new Parser().parse(piece))) {
        n++;
        const where = `${name}, document ${n}`;
        const [error] = document.errors;
        if (error !== undefined) {
          const why = /call stack/i.test(error.message) ? 'it nests too deeply' : (error.message.split('\n')[0] ?? '');
          throw new InputError(`${where} is not valid YAML: ${why}`);
        }
        const contents = document.contents;
        const [first, ...items] = linesAt(piece, line, [isNode(contents) ? contents.range[0] : undefined, ...itemOffsets(contents)]);
        const place: DocumentPlace = { line: first ?? line, ...(template === undefined ? {} : { template }), itemLines: items };
        yield { doc: document.toJS({ maxAliasCount: 100 }), where, place };
      }
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    const why = err instanceof RangeError || /call stack/i.test(describeError(err)) ? 'it nests too deeply' : describeError(err);
    throw new InputError(`${name}, document ${n} could not be read as YAML: ${why}`);
  }
}

/**
 * Parses one file's text. `name` says where it came from in errors and warnings (a path, or `-` for
 * standard input); `file`, the path as given, marks each object with its line (none for standard input).
 *
 * @throws InputError naming the file (and document) for anything that is not Kubernetes objects.
 */
export async function parseManifest(bytes: Uint8Array, name: string, file?: string): Promise<ManifestDocuments> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(`${name} is not UTF-8 text`);
  }
  const out = { objects: [] as ManifestObject[], lists: [] as GivenList[] };
  if (!looksLikeJson(text)) {
    if (text.length > MAX_YAML_CHARS)
      throw new InputError(
        `${name} holds ${text.length} characters of YAML, more than the ${MAX_YAML_CHARS} the doctor reads as YAML: give it as JSON (inferencecache dump -o json, kubectl get -o json), which it reads up to the manifest cap`,
      );
    const incomplete = incompleteDumpReason(text);
    if (incomplete !== undefined) throw new InputError(`${name} is an incomplete dump (${incomplete}): take the dump again`);
  }
  if (looksLikeJson(text)) {
    const { doc, headline } = parseJsonDocument(text, name);
    collect(normalise(doc, name), name, out, file === undefined ? undefined : { file, line: 1 });
    return fromDump({ ...out, ...dumpFacts(headline) });
  }
  let since = Date.now();
  for (const { doc, where, place } of yamlDocuments(text, name)) {
    const at =
      file === undefined ? undefined : { file, line: place.line, ...(place.template === undefined ? {} : { template: place.template }) };
    collect(normalise(doc, where), where, out, at, place.itemLines);
    if (Date.now() - since < YIELD_EVERY_MS) continue;
    // A large file takes seconds to parse: let a signal (SIGTERM) be handled in between.
    await new Promise((resolve) => setImmediate(resolve));
    since = Date.now();
  }
  return fromDump({ ...out, ...dumpFacts(yamlHeadline(text)) });
}
