/**
 * The doctor's exit codes: the contract with every CI gate and hook that runs it. `--help`, the
 * README and the report's schema say the same, from this table.
 *
 * @module
 */

/** Every exit code, by what it means. */
export const EXIT_CODES = {
  /** Nothing at or above `--fail-on` counts (by default: nothing worse than INFO). */
  healthy: 0,
  /** A finding at or above `--fail-on` counts, but no FAIL. */
  warnings: 1,
  /** A FAIL counts. */
  failures: 2,
  /** The doctor could not run: bad flags, an unreadable kubeconfig, an unknown context. No report. */
  couldNotRun: 3,
  /** The run was interrupted (SIGTERM, SIGINT): the report so far, marked incomplete. */
  interrupted: 4,
} as const;

/** One of the doctor's exit codes. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit codes a report can carry (a run that could not start has no report). */
export type ReportExitCode = Exclude<ExitCode, typeof EXIT_CODES.couldNotRun>;

/** The codes in order with a few words each, for `--help` and the README. */
export const EXIT_CODE_WORDS: readonly (readonly [ExitCode, string])[] = [
  [EXIT_CODES.healthy, 'healthy'],
  [EXIT_CODES.warnings, 'warnings'],
  [EXIT_CODES.failures, 'failures'],
  [EXIT_CODES.couldNotRun, 'the doctor could not run'],
  [EXIT_CODES.interrupted, 'interrupted (the report is incomplete)'],
];
