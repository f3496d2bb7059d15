// Timing assertions that hold on a loaded, shared machine: load can only make an action slower, so a
// lower bound may be tight; an upper bound only guards against a hang and is never under a second.

import { expect } from 'vitest';

/** How far past its own deadline an action may run before a test calls it hung. */
export const HANG_GUARD_MS = 5_000;

/**
 * Timers may fire a few milliseconds before their nominal time (the event loop's clock is cached, and a
 * gRPC deadline is a wall-clock instant); load only ever makes them later.
 */
const TIMER_SLACK_MS = 50;

/** The action ended on its budget: not before it, and not hung after it. */
export function expectEndedOnBudget(elapsedMs: number, budgetMs: number): void {
  expect(elapsedMs).toBeGreaterThanOrEqual(budgetMs - TIMER_SLACK_MS);
  expect(elapsedMs).toBeLessThan(budgetMs + HANG_GUARD_MS);
}

/**
 * The action did not wait for a budget it should not wait for. Make the budget long (10 s or more) so
 * that half of it is a window no load comes near.
 */
export function expectEndedWellBefore(elapsedMs: number, budgetMs: number): void {
  expect(budgetMs).toBeGreaterThanOrEqual(2 * 1_000);
  expect(elapsedMs).toBeLessThan(budgetMs / 2);
}

/** The action ended by its budget at the latest (it may end sooner, e.g. on a protocol error). */
export function expectEndedByBudget(elapsedMs: number, budgetMs: number): void {
  expect(elapsedMs).toBeLessThan(budgetMs + HANG_GUARD_MS);
}
