/**
 * THE output formats, declared once: what each is (for `--help`, the README and the docs), and which
 * commands write it, each with its writer. The `-o` values every command accepts, its help, the
 * README's flag table and the docs derive from this; a command refuses by name a format it does not
 * write. Writers load only when a run writes: parsing the command line loads none of them.
 *
 * @module
 */

import type { DumpDocument, DumpStream } from '../files/dump-stream.ts';
import type { RegionMarkers } from '../text/generated-region.ts';
import type { CodeExplanation } from './code-explain.ts';
import type { CodeRow } from './code-table.ts';
import type { Report } from './finding.ts';
import type { Status } from './status.ts';

/** How a report is written: options the terminal formats honour. */
export interface RenderOptions {
  /** ANSI colour; honoured by the human format only (JSON and table never carry colour). Default false. */
  readonly color?: boolean | undefined;
  /** `--output-threshold`: human and table output leave out findings below it (JSON never does). Default OK. */
  readonly outputThreshold?: Status | undefined;
  /** `--show-ok`: human output lists every OK finding instead of folding a code's many into one line. */
  readonly showOk?: boolean | undefined;
}

/**
 * What a format's writer takes, by command: a doctor report (written piece by piece, so that a large
 * report is never one string), the code table, one code explained, or a dump (a stream of pieces the
 * command writes in chunks).
 */
export interface Writers {
  readonly doctor: (report: Report, options: RenderOptions) => Iterable<string>;
  readonly codes: (rows: readonly CodeRow[]) => string;
  readonly explain: (explanation: CodeExplanation) => string;
  readonly dump: (dump: DumpDocument) => DumpStream;
}

/** A command that writes in a format of its choosing (`-o`). */
export type Command = keyof Writers;

/** One format: a line saying what it is, and its writer for each command that writes it. */
interface FormatDeclaration {
  readonly what: string;
  readonly writers: { readonly [C in Command]?: () => Promise<Writers[C]> };
}

/** The writer of the code table as aligned text, for `human` and `table`. */
const codesAsText = async () => (await import('./code-table.ts')).codeTableText;

/** Every output format, each command's default first among those it writes. */
export const OUTPUT_FORMATS = {
  human: {
    what: 'text for a person: the report by status with hints (colour on a terminal), the code table in columns, one code explained',
    writers: {
      doctor: async () => {
        const [{ renderHuman }, { toTerminal }] = await Promise.all([import('./render/human.ts'), import('./render/terminal-report.ts')]);
        return (report, o) => renderHuman(toTerminal(report, undefined, o.outputThreshold), { color: o.color ?? false, showOk: o.showOk });
      },
      codes: codesAsText,
      explain: async () => (await import('./code-explain.ts')).explainText,
    },
  },
  yaml: {
    what: 'a multi-document YAML stream of Kubernetes lists, for `doctor -f` and `kubectl`',
    writers: { dump: async () => (await import('../files/dump-stream.ts')).dumpYaml },
  },
  json: {
    what: 'one JSON document: the report (`inferencecache schema`), the code table, one code explained, or the dump as one `List`',
    writers: {
      doctor: async () => (await import('./render/json.ts')).renderJsonPieces,
      codes: async () => (await import('./code-table.ts')).codeTableJson,
      explain: async () => (await import('./code-explain.ts')).explainJson,
      dump: async () => (await import('../files/dump-stream.ts')).dumpJson,
    },
  },
  table: {
    what: 'one line per finding in aligned columns, for grep and awk',
    writers: {
      doctor: async () => {
        const [{ renderTable }, { toTerminal }, { goFields }] = await Promise.all([
          import('./render/table.ts'),
          import('./render/terminal-report.ts'),
          import('../go/strings.ts'),
        ]);
        return (report, o) => renderTable(toTerminal(report, (message) => goFields(message).join(' '), o.outputThreshold));
      },
      codes: codesAsText,
    },
  },
  junit: {
    what: 'JUnit XML for CI: one testsuite per check, a failure per finding that counts for the exit code, a skipped one per suppressed finding',
    writers: { doctor: async () => (await import('./render/junit.ts')).renderJunit },
  },
  sarif: {
    what: 'SARIF 2.1.0 for code scanning: a rule per code, each finding that is not OK a result; with `-f`, at the file and line of its object',
    writers: { doctor: async () => (await import('./render/sarif.ts')).renderSarif },
  },
  markdown: {
    what: 'a Markdown summary for a CI job summary or a pull-request comment: counts, the FAIL and WARN findings as a table, the rest folded',
    writers: { doctor: async () => (await import('./render/markdown.ts')).renderMarkdown },
  },
  html: {
    what: 'one self-contained HTML page: the findings by status and check, filterable; no network request, a strict Content Security Policy',
    writers: { doctor: async () => (await import('./render/html.ts')).renderHtml },
  },
} as const satisfies Readonly<Record<string, FormatDeclaration>>;

/** The name of one output format. */
export type OutputFormat = keyof typeof OUTPUT_FORMATS;

/** The formats command `C` writes. */
export type FormatOf<C extends Command> = {
  [F in OutputFormat]: C extends keyof (typeof OUTPUT_FORMATS)[F]['writers'] ? F : never;
}[OutputFormat];

/** Every format, in declaration order. */
export const FORMAT_NAMES = Object.keys(OUTPUT_FORMATS) as OutputFormat[];

/** The formats `command` writes, in declaration order (its default first). */
export function formatsOf<C extends Command>(command: C): FormatOf<C>[] {
  return FORMAT_NAMES.filter((name) => command in OUTPUT_FORMATS[name].writers) as FormatOf<C>[];
}

/** The format `command` writes when `-o` is not given. */
export function defaultFormatOf<C extends Command>(command: C): FormatOf<C> {
  const [first] = formatsOf(command);
  if (first === undefined) throw new Error(`${command} writes no format`);
  return first;
}

/** What a format is, in one line. */
export function formatWhat(format: OutputFormat): string {
  return OUTPUT_FORMATS[format].what;
}

/**
 * `value` as one of the formats `command` writes, or why not: a name no format has, or a format this
 * command does not write (named, with those it does).
 */
export function formatFor<C extends Command>(command: C, value: string): { ok: true; format: FormatOf<C> } | { ok: false; error: string } {
  const allowed = formatsOf(command);
  const want = `want ${allowed.length === 1 ? '' : 'one of: '}${allowed.join(', ')}`;
  if (!(FORMAT_NAMES as string[]).includes(value)) return { ok: false, error: `invalid output format ${JSON.stringify(value)} (${want})` };
  if (!(allowed as string[]).includes(value)) return { ok: false, error: `${command} does not write ${value} output (${want})` };
  return { ok: true, format: value as FormatOf<C> };
}

/** Loads the writer of `format` for `command`. */
export function writerOf<C extends Command>(command: C, format: FormatOf<C>): Promise<Writers[C]> {
  const writers: { readonly [K in Command]?: () => Promise<Writers[K]> } = OUTPUT_FORMATS[format].writers;
  const load = writers[command];
  if (load === undefined) throw new Error(`${command} writes no ${format} output`);
  return load();
}

/** Where the table of formats stands in README.md. */
export const FORMATS_MARKERS: RegionMarkers = {
  begin: '<!-- formats:begin (generated by npm run docs from src/report/output-formats.ts) -->',
  end: '<!-- formats:end -->',
};

/** A Markdown table of the formats: each format, what it is, and the commands that write it. */
export function formatsMarkdown(): string {
  const commands = Object.keys({ doctor: 0, codes: 0, explain: 0, dump: 0 } satisfies Record<Command, 0>) as Command[];
  const rows = FORMAT_NAMES.map((name) => {
    const by = commands.filter((c) => c in OUTPUT_FORMATS[name].writers).map((c) => `\`${c}\``);
    return `| \`${name}\` | ${by.join(', ')} | ${formatWhat(name)} |`;
  });
  return ['| `-o` | written by | what it is |', '|---|---|---|', ...rows].map((line) => `${line}\n`).join('');
}
