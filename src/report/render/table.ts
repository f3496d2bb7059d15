import type { TerminalFinding, TerminalReport } from './terminal-report.ts';

/** Spaces between two columns (tabwriter padding). */
const PADDING = 2;

const HEADER = ['STATUS', 'CODE', 'CHECK', 'RESOURCE', 'MESSAGE'] as const;

/**
 * The table report (docs/upstream.md ): a header and one row per finding in emission order
 * (not grouped). Resource is `-` when empty; the message has every whitespace run collapsed to one
 * space and is trimmed (`render` does that with Go's `strings.Fields` before escaping). Every column
 * but the last is left-aligned and padded to its widest cell + 2, widths counted in code points (as
 * Go's text/tabwriter does); the last column is never padded. No colour, no summary; when findings
 * were hidden (`--output-threshold`) or suppressed, a blank line and `#` notes say how many. Every cell that
 * holds data is escaped text, so no cell can break the row or drive the terminal. The findings are
 * read twice, for the widths and then for the rows, and never held as rows.
 */
export function* renderTable(report: TerminalReport): Generator<string> {
  const cells = (f: TerminalFinding) => [
    f.status,
    f.code.toString(),
    f.check.toString(),
    f.resource?.toString() ?? '-',
    f.message.toString(),
  ];
  const widths = HEADER.slice(0, -1).map((header) => codePoints(header));
  for (const f of report.findings()) {
    cells(f).forEach((cell, col) => {
      if (col < widths.length) widths[col] = Math.max(widths[col] ?? 0, codePoints(cell));
    });
  }
  const row = (values: readonly string[]) =>
    values.map((cell, col) => (col < widths.length ? pad(cell, (widths[col] ?? 0) + PADDING) : cell)).join('') + '\n';
  yield row(HEADER);
  for (const f of report.findings()) yield row(cells(f));
  const notes = [
    ...(report.hidden === undefined ? [] : [`# not shown: ${report.hidden.count} below ${report.hidden.below} (--output-threshold)`]),
    ...(report.summary.suppressed === undefined ? [] : [`# suppressed: ${report.summary.suppressed} (-o json lists them)`]),
  ];
  if (notes.length > 0) yield `\n${notes.join('\n')}\n`;
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
