/**
 * Long computations of a run, cut into slices. JavaScript answers a signal only between two tasks, so a
 * run busy for seconds (many suppression rules against many findings) would not notice SIGTERM, and the
 * kubelet's grace period would end without a report. Between two slices the run lets the event loop
 * turn (signals, sockets, timers), and stops early once it has been interrupted.
 *
 * @module
 */

import { setImmediate as nextTurn } from 'node:timers/promises';

/** The longest the run computes without letting the event loop turn. */
export const SLICE_MS = 20;

/**
 * Runs `steps` to its end, letting the event loop turn every {@link SLICE_MS} of the clock, and stops
 * before the next step once `signal` has aborted. Returns whether it ran to the end.
 */
export async function inSlices(steps: Iterator<unknown>, signal: AbortSignal | undefined, clock: () => Date): Promise<boolean> {
  let sliceEnd = clock().getTime() + SLICE_MS;
  while (steps.next().done !== true) {
    if (clock().getTime() < sliceEnd) continue;
    await nextTurn();
    if (signal?.aborted === true) return false;
    sliceEnd = clock().getTime() + SLICE_MS;
  }
  return true;
}
