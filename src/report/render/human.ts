import { formatGoDuration } from '../../go/duration.ts';
import type { TerminalText } from '../terminal-text.ts';
import type { TerminalFinding, TerminalReport } from './terminal-report.ts';
import type { Status } from '../status.ts';

/** Options of {@link renderHuman}. */
export interface HumanOptions {
  /** Emit ANSI colour sequences. The caller decides (terminal, `--no-color`, `NO_COLOR`, `TERM=dumb`). */
  readonly color: boolean;
  /** Print every OK finding; without it, a code's OK findings fold into one line past {@link FOLD_OK_AFTER}. */
  readonly showOk?: boolean | undefined;
}

/**
 * How many OK findings of one code are listed one by one; more fold into one line with their count.
 * At 20,000 pods the OK findings would otherwise bury the few problems under tens of thousands of lines.
 */
export const FOLD_OK_AFTER = 20;

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
 * The human report (docs/upstream.md R-8.1): a header, one section per status present (FAIL, WARN,
 * INFO, OK; findings in emission order within a section), then the summary line, preceded by a line
 * that says why when the run is incomplete. Resources and messages are escaped text. With `color`,
 * the header and summary are bold, section labels bold and coloured, and each finding's tag (label
 * padded to 4, space, code) coloured; resources and messages never are.
 *
 * Our additions, absent from a report that has none of them (the upstream goldens hold it to that):
 * a `hint:` line with the docs link under each finding that is not OK; past {@link FOLD_OK_AFTER} OK
 * findings of one code, one line with their count in place of the first and none for the rest
 * (unless `showOk`); lines above the summary counting hidden and suppressed findings and `--wait`
 * attempts; `--fail-on` and the suppressed count in the summary's parentheses.
 */
export function* renderHuman(report: TerminalReport, opts: HumanOptions): Generator<string> {
  const bold = (text: string) => (opts.color ? `${BOLD}${text}${RESET}` : text);
  const paint = (status: Status, text: string) => (opts.color ? `${COLOR[status]}${text}${RESET}` : text);

  yield `${bold('inferencecache doctor')}\n\n`;
  const folded = opts.showOk === true ? new Map<string, number>() : foldedOkCodes(report);
  for (const status of SECTION_ORDER) {
    let first = true;
    const foldShown = new Set<string>();
    for (const f of report.findings(status)) {
      if (first) yield `${opts.color ? `${BOLD}${paint(status, status)}` : status}\n`;
      first = false;
      const code = f.code.toString();
      const tag = paint(status, `${status.padEnd(4)} ${code}`);
      const count = status === 'OK' ? folded.get(code) : undefined;
      if (count === undefined) yield findingLines(f, tag);
      else if (!foldShown.has(code)) {
        foldShown.add(code);
        yield `  ${tag}  ${count} findings, folded (--show-ok lists each)\n`;
      }
    }
    if (!first) yield '\n';
  }
  yield* footer(report);
  const { ok, info, warn, fail, exitCode, failOn, suppressed } = report.summary;
  const notes = [
    `exit ${exitCode}`,
    ...(failOn === undefined ? [] : [`--fail-on ${failOn.toLowerCase()}`]),
    ...(suppressed === undefined ? [] : [`${suppressed} suppressed`]),
  ];
  if (report.incomplete !== undefined) yield `${bold(incompleteLine(report.incomplete))}\n`;
  yield `${bold(`Summary: ${ok} OK, ${info} INFO, ${warn} WARN, ${fail} FAIL  (${notes.join(', ')})`)}\n`;
}

/** The codes whose OK findings are more than {@link FOLD_OK_AFTER}, with their counts. */
function foldedOkCodes(report: TerminalReport): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of report.findings('OK')) counts.set(f.code.toString(), (counts.get(f.code.toString()) ?? 0) + 1);
  for (const [code, count] of counts) if (count <= FOLD_OK_AFTER) counts.delete(code);
  return counts;
}

/** What the report leaves out of the sections, and the attempts of a `--wait` run, above the summary. */
function* footer(report: TerminalReport): Generator<string> {
  if (report.hidden !== undefined) {
    const { below, count } = report.hidden;
    yield `Not shown: ${count} finding${count === 1 ? '' : 's'} below ${below} (--output-threshold ${below.toLowerCase()}; -o json holds every finding)\n`;
  }
  const { suppressed } = report.summary;
  if (suppressed !== undefined) {
    yield `Suppressed: ${suppressed} finding${suppressed === 1 ? '' : 's'}, not counted (-o json lists each with the rule that matched it)\n`;
  }
  const last = report.attempts?.at(-1);
  if (last !== undefined) {
    yield `Attempts: ${last.attempt} in ${formatGoDuration(Math.round(last.elapsedMs / 100) * 100)} (--wait)\n`;
  }
}

/**
 * The lines of one finding: tag and resource (when there is one), the indented message, and for a
 * finding that is not OK its code's hint and docs link.
 */
function findingLines(f: TerminalFinding, tag: string): string {
  const head = f.resource === undefined ? `  ${tag}` : `  ${tag}  ${f.resource.toString()}`;
  const hint = f.guide === undefined ? '' : `      hint: ${f.guide.hint.toString()} See ${f.guide.docs.toString()}\n`;
  return `${head}\n      ${f.message.toString()}\n${hint}`;
}

/** Said above the summary of a run that stopped early: its findings are not all there. */
function incompleteLine(why: TerminalText): string {
  return `Incomplete: ${why.toString()}; the checks that had not finished are missing or report what they could not read`;
}
