import { guideOf, type Attempt, type Finding, type Report, type Summary } from '../finding.ts';
import { rank, type Status } from '../status.ts';
import { forTerminal, type TerminalText } from '../terminal-text.ts';

/** A finding as the terminal renderers take it: every text escaped. */
export interface TerminalFinding {
  readonly code: TerminalText;
  readonly status: Status;
  readonly check: TerminalText;
  readonly resource?: TerminalText;
  readonly message: TerminalText;
  /** Its code's hint and docs link, for a finding that is not OK and whose code has them. */
  readonly guide?: { readonly hint: TerminalText; readonly docs: TerminalText };
}

/** A report as the terminal renderers take it. */
export interface TerminalReport {
  readonly summary: Summary;
  /** Why the run is incomplete, escaped; absent for a finished run. */
  readonly incomplete?: TerminalText;
  /** `--output-threshold` when it hides findings: the lowest status shown, and how many are not. */
  readonly hidden?: { readonly below: Status; readonly count: number };
  /** The attempts of a `--wait` run. */
  readonly attempts?: readonly Attempt[];
  /**
   * The findings in emission order, those of `status` only when given, each escaped as it is taken:
   * a report of many thousand findings is never held twice.
   */
  findings(status?: Status): Iterable<TerminalFinding>;
}

/**
 * The report with every text escaped for a terminal (`forTerminal`), holding only the findings at or
 * above `shownFrom` (`--output-threshold`; the summary still counts them all). `message` shapes each
 * message first, while it is still the raw text (the table collapses its white space).
 */
export function toTerminal(report: Report, message: (raw: string) => string = (raw) => raw, shownFrom: Status = 'OK'): TerminalReport {
  const { incomplete } = report.summary;
  const floor = rank(shownFrom);
  const count = floor === 0 ? 0 : report.findings.filter((f) => rank(f.status) < floor).length;
  // Escaped once per code: the docs base comes from a flag, and a report repeats a code many times.
  const escaped = new Map<string, NonNullable<TerminalFinding['guide']>>();
  const terminalGuide = (f: Finding): TerminalFinding['guide'] => {
    const guide = guideOf(report, f);
    if (guide === undefined) return undefined;
    let text = escaped.get(f.code);
    if (text === undefined) escaped.set(f.code, (text = { hint: forTerminal(guide.hint), docs: forTerminal(guide.docs) }));
    return text;
  };
  return {
    summary: report.summary,
    ...(incomplete === undefined ? {} : { incomplete: forTerminal(incomplete) }),
    ...(count === 0 ? {} : { hidden: { below: shownFrom, count } }),
    ...(report.attempts === undefined ? {} : { attempts: report.attempts }),
    *findings(status?: Status) {
      for (const f of report.findings) {
        if ((status !== undefined && f.status !== status) || rank(f.status) < floor) continue;
        const guide = terminalGuide(f);
        yield {
          code: forTerminal(f.code),
          status: f.status,
          check: forTerminal(f.check),
          ...(f.resource === undefined || f.resource === '' ? {} : { resource: forTerminal(f.resource) }),
          message: forTerminal(message(f.message)),
          ...(guide === undefined ? {} : { guide }),
        };
      }
    },
  };
}
