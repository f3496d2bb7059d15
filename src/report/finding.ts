import { CODES, type CheckName, type Code, type CodeOf } from './codes.ts';
import { STATUSES, rank, type Status } from './status.ts';

/**
 * One verdict of one check about one resource. The key order is the JSON contract:
 * code, status, check, resource (absent when the finding is about no single resource), message.
 */
export interface Finding {
  readonly code: Code;
  readonly status: Status;
  readonly check: CheckName;
  readonly resource?: string;
  readonly message: string;
}

/** Counts per status, and the exit code the report implies. */
export interface Summary {
  readonly ok: number;
  readonly info: number;
  readonly warn: number;
  readonly fail: number;
  readonly exitCode: 0 | 1 | 2;
}

/** The findings of one run, in emission order, with their summary. */
export interface Report {
  readonly summary: Summary;
  readonly findings: readonly Finding[];
}

/**
 * Makes the finding constructor of one check: status comes from the code table, and the type system
 * refuses a code that belongs to another check.
 */
export function emitterFor<C extends CheckName>(check: C) {
  return (code: CodeOf<C>, resource: string | undefined, message: string): Finding => {
    const status = CODES[code].status;
    return resource === undefined || resource === ''
      ? { code, status, check, message }
      : { code, status, check, resource, message };
  };
}

/** The exit code of a set of findings: 2 with any FAIL, else 1 with any WARN, else 0. */
export function exitCodeOf(findings: readonly Finding[]): 0 | 1 | 2 {
  const worst = findings.reduce((w, f) => Math.max(w, rank(f.status)), 0);
  if (worst >= rank('FAIL')) return 2;
  if (worst >= rank('WARN')) return 1;
  return 0;
}

/** Builds the report: findings kept in emission order, counts for all four statuses. */
export function makeReport(findings: readonly Finding[]): Report {
  const count = (s: Status) => findings.filter((f) => f.status === s).length;
  const [ok, info, warn, fail] = STATUSES.map(count) as [number, number, number, number];
  return { summary: { ok, info, warn, fail, exitCode: exitCodeOf(findings) }, findings };
}
