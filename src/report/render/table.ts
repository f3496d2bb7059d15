import type { TerminalReport } from './terminal-report.ts';

/** Spaces between two columns (tabwriter padding). */
const PADDING = 2;

const HEADER = ['STATUS', 'CODE', 'CHECK', 'RESOURCE', 'MESSAGE'] as const;

/**
 * The table report (upstream-doctor.md ): a header and one row per finding in emission order
 * (not grouped). Resource is `-` when empty; the message has every whitespace run collapsed to one
 * space and is trimmed (`render` does that with Go's `strings.Fields` before escaping). Every column
 * but the last is left-aligned and padded to its widest cell + 2, widths counted in code points (as
 * Go's text/tabwriter does); the last column is never padded. No colour, no summary. Every cell that
 * holds data is escaped text, so no cell can break the row or drive the terminal.
 */
export function renderTable(report: TerminalReport): string {
  const rows: (readonly string[])[] = [
    HEADER,
    ...report.findings.map((f) => [f.status, f.code.toString(), f.check.toString(), f.resource?.toString() ?? '-', f.message.toString()]),
  ];
  const widths = HEADER.slice(0, -1).map((_, col) => Math.max(...rows.map((row) => codePoints(row[col] ?? ''))) + PADDING);
  return rows.map((row) => row.map((cell, col) => (col < widths.length ? pad(cell, widths[col] ?? 0) : cell)).join('') + '\n').join('');
}

/** Length in Unicode code points (a lone surrogate counts as one, as its U+FFFD would in Go). */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s` followed by spaces up to `width` code points. */
function pad(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - codePoints(s)));
}
