import type { TerminalText } from '../terminal-text.ts';
import type { TerminalFinding, TerminalReport } from './terminal-report.ts';
import type { Status } from '../status.ts';

/** Options of {@link renderHuman}. */
export interface HumanOptions {
  /** Emit ANSI colour sequences. The caller decides (terminal, `--no-color`, `NO_COLOR`, `TERM=dumb`). */
  readonly color: boolean;
}

/** Sections of the human report, most severe first. */
const SECTION_ORDER = ['FAIL', 'WARN', 'INFO', 'OK'] as const satisfies readonly Status[];

const RESET = '\x1b[0m';
const BOLD = '\x1b[1m';
const COLOR: Readonly<Record<Status, string>> = {
  FAIL: '\x1b[31m',
  WARN: '\x1b[33m',
  INFO: '\x1b[36m',
  OK: '\x1b[32m',
};

/**
 * The human report (upstream-doctor.md R-8.1): a header, one section per status present (FAIL, WARN,
 * INFO, OK; findings in emission order within a section), then the summary line, preceded by a line
 * that says why when the run is incomplete. Resources and messages are escaped text. With `color`,
 * the header and summary are bold, section labels bold and coloured, and each finding's tag (label
 * padded to 4, space, code) coloured; resources and messages never are.
 */
export function* renderHuman(report: TerminalReport, opts: HumanOptions): Generator<string> {
  const bold = (text: string) => (opts.color ? `${BOLD}${text}${RESET}` : text);
  const paint = (status: Status, text: string) => (opts.color ? `${COLOR[status]}${text}${RESET}` : text);

  yield `${bold('inferencecache doctor')}\n\n`;
  for (const status of SECTION_ORDER) {
    let first = true;
    for (const f of report.findings(status)) {
      if (first) yield `${opts.color ? `${BOLD}${paint(status, status)}` : status}\n`;
      first = false;
      yield findingLines(f, paint(status, `${status.padEnd(4)} ${f.code.toString()}`));
    }
    if (!first) yield '\n';
  }
  const { ok, info, warn, fail, exitCode, failOn } = report.summary;
  const threshold = failOn === undefined ? '' : `, --fail-on ${failOn.toLowerCase()}`;
  if (report.hidden !== undefined) {
    const { below, count } = report.hidden;
    yield `Not shown: ${count} finding${count === 1 ? '' : 's'} below ${below} (--output-threshold ${below.toLowerCase()}; -o json holds every finding)\n`;
  }
  if (report.incomplete !== undefined) yield `${bold(incompleteLine(report.incomplete))}\n`;
  yield `${bold(`Summary: ${ok} OK, ${info} INFO, ${warn} WARN, ${fail} FAIL  (exit ${exitCode}${threshold})`)}\n`;
}

/** The two lines of one finding: tag and resource (when there is one), then the indented message. */
function findingLines(f: TerminalFinding, tag: string): string {
  const head = f.resource === undefined ? `  ${tag}` : `  ${tag}  ${f.resource.toString()}`;
  return `${head}\n      ${f.message.toString()}\n`;
}

/** Said above the summary of a run that stopped early: its findings are not all there. */
function incompleteLine(why: TerminalText): string {
  return `Incomplete: ${why.toString()}; the checks that had not finished are missing or report what they could not read`;
}
