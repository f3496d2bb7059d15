import { STATUSES, rank, type Status } from './status.ts';

/**
 * One verdict of one check about one resource. The key order is the JSON contract:
 * code, status, check, resource (absent when the finding is about no single resource), message.
 * Which codes and checks exist is the checks' business (`checks/registry.ts`); the report carries them
 * as they come.
 */
export interface Finding {
  readonly code: string;
  readonly status: Status;
  readonly check: string;
  readonly resource?: string;
  readonly message: string;
}

/** Counts per status, and the exit code the report implies. */
export interface Summary {
  readonly ok: number;
  readonly info: number;
  readonly warn: number;
  readonly fail: number;
  readonly exitCode: ReportExitCode;
  /**
   * Why the run stopped before it finished (`interrupted by SIGTERM`); absent for a finished run. An
   * incomplete report lacks findings, so its exit code is {@link EXIT_INCOMPLETE} whatever it holds.
   */
  readonly incomplete?: string;
  /**
   * The lowest status that counted for the exit code (`--fail-on`), when it is not the default
   * {@link DEFAULT_FAIL_ON}: a report read later must say why its WARNs did not fail it.
   */
  readonly failOn?: Status;
}

/** The `--fail-on` of a run that names none: WARN and FAIL count, as upstream's exit codes do. */
export const DEFAULT_FAIL_ON: Status = 'WARN';

/** The exit code of an incomplete report: the run was interrupted, so its verdict is unknown. */
export const EXIT_INCOMPLETE = 4;

/** 0 nothing worse than INFO, 1 a WARN, 2 a FAIL, 4 incomplete. (3, could not run, has no report.) */
export type ReportExitCode = 0 | 1 | 2 | typeof EXIT_INCOMPLETE;

/** The findings of one run, in emission order, with their summary. */
export interface Report {
  readonly summary: Summary;
  readonly findings: readonly Finding[];
}

/**
 * The exit code of a set of findings, counting only those at or above `failOn`: 2 when a FAIL counts,
 * else 1 when any finding counts (a WARN; or, below the default threshold, an INFO or OK), else 0.
 */
export function exitCodeOf(findings: readonly Finding[], failOn: Status = DEFAULT_FAIL_ON): 0 | 1 | 2 {
  const floor = rank(failOn);
  const worst = findings.reduce((w, f) => Math.max(w, rank(f.status)), -1);
  if (worst < floor) return 0;
  return worst >= rank('FAIL') ? 2 : 1;
}

/**
 * Builds the report: findings kept in emission order, counts for all four statuses, the exit code
 * with `failOn` as the threshold (named in the summary when it is not the default), and, for a run
 * that stopped early, why it is incomplete.
 */
export function makeReport(findings: readonly Finding[], incomplete?: string, failOn: Status = DEFAULT_FAIL_ON): Report {
  const count = (s: Status) => findings.filter((f) => f.status === s).length;
  const [ok, info, warn, fail] = STATUSES.map(count) as [number, number, number, number];
  const threshold = failOn === DEFAULT_FAIL_ON ? {} : { failOn };
  if (incomplete === undefined)
    return { summary: { ok, info, warn, fail, exitCode: exitCodeOf(findings, failOn), ...threshold }, findings };
  return { summary: { ok, info, warn, fail, exitCode: EXIT_INCOMPLETE, incomplete, ...threshold }, findings };
}
