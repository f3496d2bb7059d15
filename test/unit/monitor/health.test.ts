/** /healthz and /readyz, judged from what the monitor knows: a table of facts and instants. */
import { describe, expect, it } from 'vitest';
import { liveness, readiness, staleAfterMs, type HealthFacts } from '../../../src/monitor/health.ts';

const START = 1_000_000;
const facts = (o: Partial<HealthFacts> = {}): HealthFacts => ({
  startedAtMs: START,
  lastCompletedMs: undefined,
  intervalMs: 60_000,
  timeoutMs: 30_000,
  stopping: false,
  ...o,
});

describe('/healthz', () => {
  it('fails once no run has completed for two intervals (the jitter allowed for), or two deadlines when those are longer', () => {
    expect(staleAfterMs({ intervalMs: 60_000, timeoutMs: 30_000 })).toBe(132_000);
    expect(staleAfterMs({ intervalMs: 10_000, timeoutMs: 120_000 })).toBe(240_000);
  });
  const cases: [string, HealthFacts, number, boolean, RegExp][] = [
    ['the first run under way', facts(), START + 5_000, true, /first run is under way/],
    [
      'no run completed since the start, two intervals on',
      facts(),
      START + 133_000,
      false,
      /no run has completed since the monitor started 133s ago, more than 132s/,
    ],
    ['a run completed a minute ago', facts({ lastCompletedMs: START + 60_000 }), START + 120_000, true, /completed 60s ago/],
    ['the last run completed too long ago', facts({ lastCompletedMs: START }), START + 200_000, false, /the last run completed 200s ago/],
  ];
  it.each(cases)('%s', (_name, f, now, ok, text) => {
    const answer = liveness(f, now);
    expect(answer.ok).toBe(ok);
    expect(answer.text).toMatch(text);
  });
});

describe('/readyz', () => {
  it('not before a run has completed, then ready, and not once stopping', () => {
    expect(readiness(facts())).toEqual({ ok: false, text: 'no run has completed yet' });
    expect(readiness(facts({ lastCompletedMs: START }))).toEqual({ ok: true, text: 'ok' });
    expect(readiness(facts({ lastCompletedMs: START, stopping: true }))).toEqual({ ok: false, text: 'stopping' });
  });
});
