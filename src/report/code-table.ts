import { findingsSeriesOf } from '../metrics/catalogue.ts';
import { goJson } from '../go/json.ts';
import { goFields } from '../go/strings.ts';
import type { Status } from './status.ts';

/**
 * What one check reads of the cluster and probes on the network, in words: what an operator is told a
 * finding was judged from (`inferencecache explain`, docs/codes.md). Derived from the check's
 * declaration (`checks/check-reads.ts`), so it cannot name a read the check does not take.
 */
export interface CheckReads {
  readonly check: string;
  /** One phrase per Kubernetes read, verb first: `lists CacheBackends (all namespaces, or -n)`. */
  readonly kubernetes: readonly string[];
  /** One phrase per network probe, verb first: `dials each CacheBackend's published remote endpoint over TCP, …`. */
  readonly probes: readonly string[];
}

/**
 * One row of the code table, as `inferencecache codes`, `inferencecache explain` and docs/codes.md show
 * it. The rows are derived from the check declarations (`checks/codes.ts`); this layer only renders them.
 */
export interface CodeRow {
  readonly code: string;
  readonly status: Status;
  /** The checks that may emit the code, in run order. */
  readonly checks: readonly string[];
  /** What the finding means, in one line. */
  readonly meaning: string;
  /** What an operator does about it, in one line. */
  readonly hint: string;
  /** What an operator does about it in full: a few sentences, or steps numbered `1. … 2. …`. */
  readonly fix: string;
  /** What each of {@link CodeRow.checks} reads and probes, in the same order. */
  readonly reads: readonly CheckReads[];
  /** The code's section in docs/codes.md (`#cb004`). */
  readonly anchor: string;
}

/**
 * One check's reads and probes as one line, phrases joined by semicolons; a check that takes neither
 * (it judges what the run itself holds, such as the files of `doctor -f`) says so.
 */
export function checkReadsText(reads: CheckReads): string {
  const phrases = [...reads.kubernetes, ...reads.probes];
  return phrases.length === 0 ? 'no Kubernetes read and no probe of its own' : phrases.join('; ');
}

/**
 * The steps of a fix written as numbered steps (`1. … 2. …`), each with its number, so that a terminal
 * can put each on a line and Markdown can list them; a fix in plain sentences is one item.
 */
export function fixSteps(fix: string): string[] {
  return fix.startsWith('1. ') ? fix.split(/(?<=\.) (?=\d\. )/) : [fix];
}

/**
 * Plain text as Markdown should show it: characters Markdown reads as markup are escaped, and `<`
 * written as an entity, so that a placeholder such as `<namespace>` is shown rather than taken for HTML.
 */
function markdownText(text: string): string {
  return text.replace(/[\\`*_[\]|<]/g, (c) => (c === '<' ? '&lt;' : `\\${c}`));
}

/** A code's section of docs/codes.md after its heading and status line: meaning, reads, hint and fix. */
function codeSection(row: CodeRow): string[] {
  const [only] = row.reads;
  const reads =
    row.reads.length === 1 && only !== undefined
      ? [`Reads: ${markdownText(checkReadsText(only))}`]
      : ['Reads, by check:', '', ...row.reads.map((r) => `- ${r.check}: ${markdownText(checkReadsText(r))}`)];
  const steps = fixSteps(row.fix).map(markdownText);
  const fix = steps.length === 1 ? [`Fix: ${steps[0] ?? ''}`] : ['Fix:', '', ...steps];
  return [markdownText(row.meaning), '', ...reads, '', `Hint: ${markdownText(row.hint)}`, '', ...fix, ''];
}

/** The code table as `inferencecache codes -o json` prints it, for tools. */
export function codeTableJson(rows: readonly CodeRow[]): string {
  return `${goJson(rows.map((r) => ({ code: r.code, status: r.status, checks: [...r.checks], meaning: r.meaning, hint: r.hint, docs: `docs/codes.md${r.anchor}` })))}\n`;
}

/** The code table as `inferencecache codes` prints it for a person (`-o human` and `-o table`): aligned columns. */
export function codeTableText(rows: readonly CodeRow[]): string {
  const table = [
    { code: 'CODE', status: 'STATUS', checks: 'CHECK', meaning: 'MEANING' },
    ...rows.map((r) => ({ ...r, checks: r.checks.join(',') })),
  ];
  const width = (key: 'code' | 'status' | 'checks') => Math.max(...table.map((r) => [...r[key]].length)) + 2;
  const [wc, ws, wk] = [width('code'), width('status'), width('checks')];
  return table.map((r) => `${r.code.padEnd(wc)}${r.status.padEnd(ws)}${r.checks.padEnd(wk)}${goFields(r.meaning).join(' ')}\n`).join('');
}

/**
 * docs/codes.md, generated from the code table (`npm run docs`); a test fails when the committed file
 * differs, so the docs cannot drift from the declarations. Each code has a section of its own, whose
 * heading is the anchor findings link to.
 */
export function codesMarkdown(rows: readonly CodeRow[]): string {
  const lines = [
    '# Finding codes',
    '',
    '<!-- Generated from the check declarations in src/checks/ by `npm run docs`. Do not edit by hand. -->',
    '',
    'Every finding carries one of these codes. A code always has the same status; codes are never',
    'renumbered or reused. `API001` is emitted by whichever check could not read what it needed.',
    '`inferencecache monitor` counts the findings of each code in the series its row names (one per',
    'check that may emit it, labelled `check` and `status` too: [monitor.md](monitor.md#metrics)).',
    "Each code's section says what its checks read and probe, and how to fix what it reports;",
    '`inferencecache explain CODE` prints the same section in a terminal, without network access.',
    '',
    '| code | status | check | meaning | series |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| [${r.code}](${r.anchor}) | ${r.status} | ${r.checks.join(', ')} | ${markdownText(r.meaning)} | \`${findingsSeriesOf(r.code)}\` |`,
    ),
    '',
    ...rows.flatMap((r) => [`## ${r.code}`, '', `**${r.status}** · ${r.checks.join(', ')}`, '', ...codeSection(r)]),
  ];
  return lines.join('\n');
}
