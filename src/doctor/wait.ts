/**
 * `--wait`: how long to pause between attempts, and the progress line each attempt prints.
 *
 * @module
 */

import type { DoctorOptions } from '../cli/options.ts';
import { formatGoDuration } from '../go/duration.ts';
import type { Attempt, Finding } from '../report/finding.ts';
import { rank } from '../report/status.ts';

/** The first pause between two attempts of `--wait` when an attempt is quick. */
export const WAIT_MIN_PAUSE_MS = 1_000;
/** The longest pause between two attempts of `--wait`. */
export const WAIT_MAX_PAUSE_MS = 30_000;

/**
 * The pause before attempt `next` (2, 3, …): as long as the last attempt took, at least
 * {@link WAIT_MIN_PAUSE_MS}, doubled for each attempt after the second, at most
 * {@link WAIT_MAX_PAUSE_MS}. A big cluster, whose reads take long, is asked less often.
 */
export function pauseBefore(next: number, lastAttemptMs: number): number {
  return Math.min(WAIT_MAX_PAUSE_MS, Math.max(WAIT_MIN_PAUSE_MS, lastAttemptMs) * 2 ** Math.max(0, next - 2));
}

/** How many findings of each code count for the exit code (at or above `failOn`), codes in emission order. */
export function countedByCode(findings: readonly Finding[], failOn: DoctorOptions['failOn']): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) if (rank(f.status) >= rank(failOn)) counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
  return counts;
}

/** The progress line of an attempt: its outcome, what still counts, and when the next attempt starts. */
export function progressLine(
  a: Attempt,
  counted: ReadonlyMap<string, number>,
  failOn: DoctorOptions['failOn'],
  pauseMs: number | undefined,
): string {
  const head = `attempt ${a.attempt} after ${formatGoDuration(Math.round(a.elapsedMs / 100) * 100)}: exit ${a.exitCode}`;
  if (counted.size === 0) return `${head}, nothing at or above --fail-on ${failOn.toLowerCase()} remains`;
  const still = [...counted].map(([code, n]) => (n === 1 ? code : `${code} x${n}`)).join(', ');
  const next = pauseMs === undefined ? 'the wait is over' : `next attempt in ${formatGoDuration(pauseMs)}`;
  return `${head}, still counted: ${still}; ${next}`;
}
