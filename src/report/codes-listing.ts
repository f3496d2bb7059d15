import { ALL_CODES, CODES } from './codes.ts';
import { goFields, goJson } from './gofmt.ts';
import type { OutputFormat } from './render/index.ts';

function rows(): { code: string; status: string; checks: string; meaning: string }[] {
  return ALL_CODES.map((code) => ({ code, status: CODES[code].status, checks: CODES[code].checks.join(','), meaning: CODES[code].meaning }));
}

/** The code table as `inferencecache codes` prints it: aligned text, or JSON for tools. */
export function renderCodes(format: OutputFormat): string {
  if (format === 'json') {
    return `${goJson(ALL_CODES.map((code) => ({ code, status: CODES[code].status, checks: [...CODES[code].checks], meaning: CODES[code].meaning })))}\n`;
  }
  const table = [{ code: 'CODE', status: 'STATUS', checks: 'CHECK', meaning: 'MEANING' }, ...rows()];
  const width = (key: 'code' | 'status' | 'checks') => Math.max(...table.map((r) => [...r[key]].length)) + 2;
  const [wc, ws, wk] = [width('code'), width('status'), width('checks')];
  return table
    .map((r) => `${r.code.padEnd(wc)}${r.status.padEnd(ws)}${r.checks.padEnd(wk)}${goFields(r.meaning).join(' ')}\n`)
    .join('');
}

/**
 * `docs/codes.md`, generated from the code table (`npm run docs`); a test fails when the committed
 * file differs, so the docs cannot drift from the contract.
 */
export function codesMarkdown(): string {
  const lines = [
    '# Finding codes',
    '',
    '<!-- Generated from src/report/codes.ts by `npm run docs`. Do not edit by hand. -->',
    '',
    'Every finding carries one of these codes. A code always has the same status; codes are never',
    'renumbered or reused. `API001` is emitted by whichever Kubernetes check could not read what it needed.',
    '',
    '| code | status | check | meaning |',
    '|---|---|---|---|',
    ...ALL_CODES.map((code) => `| ${code} | ${CODES[code].status} | ${CODES[code].checks.join(', ')} | ${CODES[code].meaning} |`),
    '',
  ];
  return lines.join('\n');
}
