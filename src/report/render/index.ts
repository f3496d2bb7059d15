import { goFields } from '../../go/strings.ts';
import type { Report } from '../finding.ts';
import { renderHuman } from './human.ts';
import { renderJsonPieces } from './json.ts';
import { renderJunit } from './junit.ts';
import { renderTable } from './table.ts';
import { toTerminal } from './terminal-report.ts';
import type { OutputFormat } from '../output-format.ts';
import type { Status } from '../status.ts';

export { type HumanOptions } from './human.ts';
export { renderJson } from './json.ts';
export { OUTPUT_FORMATS, type OutputFormat } from '../output-format.ts';

/** Options of {@link render}. */
export interface RenderOptions {
  /** ANSI colour; honoured by the human format only (JSON and table never carry colour). Default false. */
  readonly color?: boolean | undefined;
  /** `--output-threshold`: human and table output leave out findings below it (JSON never does). Default OK. */
  readonly outputThreshold?: Status | undefined;
  /** `--show-ok`: human output lists every OK finding instead of folding a code's many into one line. */
  readonly showOk?: boolean | undefined;
}

/**
 * Renders `report` in `format`, piece by piece (a finding or so at a time): the caller writes the
 * pieces as they come, so a large report is never one string. Human and table output go to
 * terminals, so their renderers get the report with every text escaped; JSON and JUnit escape by
 * themselves. `--output-threshold` and folding apply to human and table output only.
 */
export function renderPieces(report: Report, format: OutputFormat, opts: RenderOptions = {}): Iterable<string> {
  switch (format) {
    case 'human':
      return renderHuman(toTerminal(report, undefined, opts.outputThreshold), { color: opts.color ?? false, showOk: opts.showOk });
    case 'json':
      return renderJsonPieces(report);
    case 'table':
      return renderTable(toTerminal(report, (message) => goFields(message).join(' '), opts.outputThreshold));
    case 'junit':
      return renderJunit(report);
  }
}

/** Renders `report` in `format` as one string (see {@link renderPieces}). */
export function render(report: Report, format: OutputFormat, opts: RenderOptions = {}): string {
  return [...renderPieces(report, format, opts)].join('');
}
