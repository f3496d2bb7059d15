import { findingsSeriesOf } from '../metrics/catalogue.ts';
import { goJson } from '../go/json.ts';
import { goFields } from '../go/strings.ts';
import type { Status } from './status.ts';

/**
 * One row of the code table, as `inferencecache codes` and docs/codes.md show it. The rows are derived
 * from the check declarations (`checks/codes.ts`); this layer only renders them.
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
  /** The code's section in docs/codes.md (`#cb004`). */
  readonly anchor: string;
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
    '',
    '| code | status | check | meaning | series |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) => `| [${r.code}](${r.anchor}) | ${r.status} | ${r.checks.join(', ')} | ${r.meaning} | \`${findingsSeriesOf(r.code)}\` |`,
    ),
    '',
    ...rows.flatMap((r) => [`## ${r.code}`, '', `**${r.status}** · ${r.checks.join(', ')}`, '', r.meaning, '', `Hint: ${r.hint}`, '']),
  ];
  return lines.join('\n');
}
