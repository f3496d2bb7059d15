/**
 * Per-probe time budgets. Every probe gets its own budget inside the run-wide deadline (docs/deviations.md#dev-2),
 * so one black-holed endpoint cannot eat the time of everything after it. A budget ends either when
 * its own time is up or when the overall signal aborts, whichever comes first, and can say why in
 * one line. Also the interruptible pause that the settle window's retries and `--wait` share.
 *
 * @module
 */

import { formatGoDuration } from '../go/duration.ts';
import { Interrupted } from '../text/errors.ts';

/** Longest delay `setTimeout` accepts; larger budgets are clamped to it (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A probe's time budget. Call `dispose` when the probe is done, to stop the timer. */
export interface ProbeBudget {
  /** Aborts when the budget's own time is up or the overall signal aborts. */
  readonly signal: AbortSignal;
  /** The budget in milliseconds, as given (clamped to ≥ 0). */
  readonly ms: number;
  /** Epoch milliseconds at which the budget's own time is up. */
  readonly deadline: number;
  /** Why the budget ended, as one line; `undefined` while it is still running. */
  readonly reason: () => string | undefined;
  /** What ended the budget: its own time (`'timeout'`), the overall signal (`'aborted'`), or nothing yet. */
  readonly endedBy: () => 'timeout' | 'aborted' | undefined;
  /** Stops the timer and detaches from the overall signal. Idempotent. */
  readonly dispose: () => void;
}

/** The one-line error of a probe whose own budget ran out. */
export function timeoutMessage(ms: number): string {
  return `no answer within ${formatGoDuration(ms)}`;
}

/** The one-line error of a probe stopped by the overall signal, from that signal's reason. */
export function abortMessage(reason: unknown): string {
  if (reason instanceof Error && reason.name === 'TimeoutError') return 'the overall deadline of the run passed before an answer';
  if (reason instanceof Interrupted) return `the run was ${reason.message} before an answer`;
  return 'cancelled before an answer';
}

/** Normalises a budget: NaN and negatives become 0, huge values are clamped to what timers allow. */
function clampBudget(ms: number): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

/**
 * Starts a budget of `ms` milliseconds that also ends when `overall` aborts. Nothing keeps the
 * process alive: the timer is unreferenced.
 */
export function startBudget(ms: number, overall?: AbortSignal): ProbeBudget {
  const budgetMs = clampBudget(ms);
  const own = new AbortController();
  let why: string | undefined;
  let endedBy: 'timeout' | 'aborted' | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const onOverall = (): void => {
    if (why === undefined) {
      why = abortMessage(overall?.reason);
      endedBy = 'aborted';
    }
    own.abort(overall?.reason);
  };
  const dispose = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    overall?.removeEventListener('abort', onOverall);
  };

  if (overall?.aborted === true) {
    onOverall();
  } else {
    overall?.addEventListener('abort', onOverall, { once: true });
    const fire = (): void => {
      if (why === undefined) {
        why = timeoutMessage(budgetMs);
        endedBy = 'timeout';
      }
      dispose();
      own.abort(new DOMException(why, 'TimeoutError'));
    };
    if (budgetMs === 0) fire();
    else {
      timer = setTimeout(fire, budgetMs);
      timer.unref();
    }
  }

  return {
    signal: own.signal,
    ms: budgetMs,
    deadline: Date.now() + budgetMs,
    reason: () => why,
    endedBy: () => endedBy,
    dispose,
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
