import { describe, expect, it } from 'vitest';
import { cacheBackendHealth } from '../../../src/checks/cachebackend-health.ts';
import { runCheck } from '../../../src/checks/run.ts';
import { REDIS, dials, given, healthy, ok, omit, pod } from './fixtures.ts';

describe('CacheBackendHealth messages', () => {
  it('CB002 text is the same whether the 0 came from status or the live fallback (R-2.4.5)', () => {
    const probes = { dials: dials({ [REDIS]: { ok: true } }) };
    const fromStatus = runCheck(cacheBackendHealth, given({ cacheBackends: ok([healthy({ matchedEnginePods: 0 })]) }, { probes }));
    const fromLive = runCheck(
      cacheBackendHealth,
      given({ cacheBackends: ok([omit(healthy(), 'matchedEnginePods')]), pods: ok([pod('web', { labels: { app: 'web' } })]) }, { probes }),
    );
    expect(fromStatus.map((f) => f.code)).toStrictEqual(['CB002']);
    expect(fromLive.map((f) => f.code)).toStrictEqual(['CB002']);
    expect(fromLive[0]?.message).toBe(fromStatus[0]?.message);
  });
});
