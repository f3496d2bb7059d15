import type { Report, Summary } from '../finding.ts';
import type { Status } from '../status.ts';
import { forTerminal, type TerminalText } from '../terminal-text.ts';

/** A finding as the terminal renderers take it: every text escaped. */
export interface TerminalFinding {
  readonly code: TerminalText;
  readonly status: Status;
  readonly check: TerminalText;
  readonly resource?: TerminalText;
  readonly message: TerminalText;
}

/** A report as the terminal renderers take it. */
export interface TerminalReport {
  readonly summary: Summary;
  /** Why the run is incomplete, escaped; absent for a finished run. */
  readonly incomplete?: TerminalText;
  /**
   * The findings in emission order, those of `status` only when given, each escaped as it is taken:
   * a report of many thousand findings is never held twice.
   */
  findings(status?: Status): Iterable<TerminalFinding>;
}

/**
 * The report with every text escaped for a terminal (`forTerminal`). `message` shapes each message
 * first, while it is still the raw text (the table collapses its white space).
 */
export function toTerminal(report: Report, message: (raw: string) => string = (raw) => raw): TerminalReport {
  const { incomplete } = report.summary;
  return {
    summary: report.summary,
    ...(incomplete === undefined ? {} : { incomplete: forTerminal(incomplete) }),
    *findings(status?: Status) {
      for (const f of report.findings) {
        if (status !== undefined && f.status !== status) continue;
        yield {
          code: forTerminal(f.code),
          status: f.status,
          check: forTerminal(f.check),
          ...(f.resource === undefined || f.resource === '' ? {} : { resource: forTerminal(f.resource) }),
          message: forTerminal(message(f.message)),
        };
      }
    },
  };
}
