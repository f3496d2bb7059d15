import { goFields } from '../../go/strings.ts';
import type { Report } from '../finding.ts';
import { renderHuman } from './human.ts';
import { renderJson } from './json.ts';
import { renderTable } from './table.ts';
import { toTerminal } from './terminal-report.ts';

export { type HumanOptions } from './human.ts';
export { renderJson } from './json.ts';

/** The values of `--output`, the default first. */
export const OUTPUT_FORMATS = ['human', 'json', 'table'] as const;

/** One of {@link OUTPUT_FORMATS}. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Options of {@link render}. */
export interface RenderOptions {
  /** ANSI colour; honoured by the human format only (JSON and table never carry colour). Default false. */
  readonly color?: boolean | undefined;
}

/**
 * Renders `report` in `format`. Pure: the caller writes the string to stdout. Human and table output
 * go to terminals, so their renderers get the report with every text escaped; JSON escapes by itself.
 */
export function render(report: Report, format: OutputFormat, opts: RenderOptions = {}): string {
  switch (format) {
    case 'human':
      return renderHuman(toTerminal(report), { color: opts.color ?? false });
    case 'json':
      return renderJson(report);
    case 'table':
      return renderTable(toTerminal(report, (message) => goFields(message).join(' ')));
  }
}
