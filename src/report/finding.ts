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
}

/** The exit code of an incomplete report: the run was interrupted, so its verdict is unknown. */
export const EXIT_INCOMPLETE = 4;

/** 0 nothing worse than INFO, 1 a WARN, 2 a FAIL, 4 incomplete. (3, could not run, has no report.) */
export type ReportExitCode = 0 | 1 | 2 | typeof EXIT_INCOMPLETE;

/** The findings of one run, in emission order, with their summary. */
export interface Report {
  readonly summary: Summary;
  readonly findings: readonly Finding[];
}

/** The exit code of a set of findings: 2 with any FAIL, else 1 with any WARN, else 0. */
export function exitCodeOf(findings: readonly Finding[]): 0 | 1 | 2 {
  const worst = findings.reduce((w, f) => Math.max(w, rank(f.status)), 0);
  if (worst >= rank('FAIL')) return 2;
  if (worst >= rank('WARN')) return 1;
  return 0;
}

/**
 * Builds the report: findings kept in emission order, counts for all four statuses, and, for a run
 * that stopped early, why it is incomplete.
 */
export function makeReport(findings: readonly Finding[], incomplete?: string): Report {
  const count = (s: Status) => findings.filter((f) => f.status === s).length;
  const [ok, info, warn, fail] = STATUSES.map(count) as [number, number, number, number];
  if (incomplete === undefined) return { summary: { ok, info, warn, fail, exitCode: exitCodeOf(findings) }, findings };
  return { summary: { ok, info, warn, fail, exitCode: EXIT_INCOMPLETE, incomplete }, findings };
}
