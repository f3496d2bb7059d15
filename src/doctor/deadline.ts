/**
 * The deadline of a run's attempts: each starts at an instant of the run's clock, its every read and
 * probe ending when `--timeout` passes or the process is interrupted, whichever is first.
 *
 * @module
 */

/** When an attempt started (its reference instant) and the signal that ends it at `--timeout`. */
export interface AttemptStart {
  readonly now: Date;
  readonly signal: AbortSignal;
}

/** Ends every read and probe when `--timeout` passes or the process is interrupted, whichever is first. */
export function overallSignal(timeoutMs: number, interrupt: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return interrupt === undefined ? timeout : AbortSignal.any([timeout, interrupt]);
}

/** An attempt that starts now on `clock`, ending at `--timeout` or at the interrupt. */
export function startAttempt(clock: () => Date, timeoutMs: number, interrupt: AbortSignal | undefined): AttemptStart {
  return { now: clock(), signal: overallSignal(timeoutMs, interrupt) };
}
