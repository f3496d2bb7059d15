// The pause between two --wait attempts: it grows with the attempts and with how long one attempt takes.
import { describe, expect, it } from 'vitest';
import { WAIT_MAX_PAUSE_MS, WAIT_MIN_PAUSE_MS, pauseBefore } from '../../../src/doctor/wait.ts';

describe('pauseBefore', () => {
  it.each([
    [2, 100, WAIT_MIN_PAUSE_MS],
    [3, 100, 2 * WAIT_MIN_PAUSE_MS],
    [4, 100, 4 * WAIT_MIN_PAUSE_MS],
    [2, 5_000, 5_000],
    [3, 5_000, 10_000],
    [4, 5_000, 20_000],
    [5, 5_000, WAIT_MAX_PAUSE_MS],
    [2, 120_000, WAIT_MAX_PAUSE_MS],
    [60, 100, WAIT_MAX_PAUSE_MS],
  ])('before attempt %i after an attempt of %i ms: %i ms', (next, took, want) => {
    expect(pauseBefore(next, took)).toBe(want);
  });
});
