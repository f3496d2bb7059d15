/**
 * The monitor's two health answers, as pure functions of what it knows: `/healthz` says whether it is
 * still doing its job (a run has completed recently enough), `/readyz` whether its metrics are worth
 * scraping yet (a run has completed) and it is not shutting down.
 *
 * @module
 */

/** What the health answers are judged from. */
export interface HealthFacts {
  readonly startedAtMs: number;
  /** When the last run completed; undefined until one has. */
  readonly lastCompletedMs: number | undefined;
  readonly intervalMs: number;
  /** The deadline of one run (`--timeout`). */
  readonly timeoutMs: number;
  readonly stopping: boolean;
}

/** An answer: whether it is good, and one line saying why. */
export interface HealthAnswer {
  readonly ok: boolean;
  readonly text: string;
}

/** How far the jitter may push a run's start past the interval. */
const LATEST_START = 1.1;

/**
 * How long the monitor may go without completing a run before `/healthz` fails: two intervals, or two
 * run deadlines when `--timeout` is the longer (a run that takes its whole deadline is followed at
 * once by the next, so completions are then a deadline apart).
 */
export function staleAfterMs(facts: Pick<HealthFacts, 'intervalMs' | 'timeoutMs'>): number {
  return 2 * Math.max(facts.intervalMs * LATEST_START, facts.timeoutMs);
}

/** `/healthz`: good while a run has completed (or the monitor started) within {@link staleAfterMs}. */
export function liveness(facts: HealthFacts, nowMs: number): HealthAnswer {
  const since = facts.lastCompletedMs ?? facts.startedAtMs;
  const seconds = Math.round((nowMs - since) / 1000);
  const limit = Math.round(staleAfterMs(facts) / 1000);
  const what = facts.lastCompletedMs === undefined ? 'no run has completed since the monitor started' : 'the last run completed';
  if (nowMs - since > staleAfterMs(facts)) return { ok: false, text: `${what} ${seconds}s ago, more than ${limit}s` };
  return { ok: true, text: facts.lastCompletedMs === undefined ? 'ok: the first run is under way' : `ok: ${what} ${seconds}s ago` };
}

/** `/readyz`: good once a run has completed, until the monitor is told to stop. */
export function readiness(facts: HealthFacts): HealthAnswer {
  if (facts.stopping) return { ok: false, text: 'stopping' };
  if (facts.lastCompletedMs === undefined) return { ok: false, text: 'no run has completed yet' };
  return { ok: true, text: 'ok' };
}
