/** CacheBackendHealth (CB): docs/upstream.md, docs/deviations.md#dev-4 and #dev-10. */
import { cacheBackendHealth } from '../../../src/checks/cachebackend-health.ts';

import type { ProbeResults } from '../../../src/probes/results.ts';
import {
  HOUR,
  MINUTE,
  REDIS,
  SECOND,
  ago,
  backend,
  cond,
  dials,
  failed,
  given,
  healthy,
  ok,
  omit,
  pod,
  type Case,
  type CheckTable,
} from './fixtures.ts';
import type { CacheBackend } from '../../../src/cluster/kinds/cache-backend.ts';
import type { Pod } from '../../../src/cluster/kinds/pod.ts';

const R = 'cachebackend/ns1/be';
const DIAL_OK: ProbeResults = { dials: dials({ [REDIS]: { ok: true } }) };
const DIAL_FAIL: ProbeResults = { dials: dials({ [REDIS]: { ok: false, error: 'dial tcp 10.0.0.9:6379: connect: connection refused' } }) };

/** A backend judged alone, with the given pods and probes. */
function one(b: CacheBackend, probes: ProbeResults = DIAL_OK, pods: readonly Pod[] = []): Case['input'] {
  return given({ cacheBackends: ok([b]), pods: ok(pods) }, { probes });
}

/** A backend whose last KV event is `age` ms old (latch set). */
function lastEventAgo(age: number): CacheBackend {
  return healthy({ indexParticipation: { prefixCount: 5, lastEventAt: ago(age) } });
}

const engine = (name: string, o: Partial<Pod> = {}) => pod(name, { labels: { app: 'engine' }, ...o });
const noLiveCount = omit(healthy(), 'matchedEnginePods');

export const cacheBackendCases: readonly Case[] = [
  // --- list failure and list order
  {
    name: 'list failed → single API001 on the bare kind',
    input: given({ cacheBackends: failed('cachebackends.inferencecache.io is forbidden') }),
    expected: [['API001', 'CacheBackend', ['cachebackends.inferencecache.io is forbidden']]],
  },
  { name: 'no backends → nothing', input: given({}), expected: [] },
  {
    name: 'backends judged in list order, not sorted',
    input: given({ cacheBackends: ok([healthy({ name: 'zeta' }), healthy({ name: 'alpha', namespace: 'ns0' })]) }, { probes: DIAL_OK }),
    expected: [
      ['CB006', 'cachebackend/ns1/zeta'],
      ['CB006', 'cachebackend/ns0/alpha'],
    ],
  },

  // --- 2.4.11 test-pinned cases
  {
    name: 'pinned: healthy managed backend, endpoint dialable → [CB006]',
    input: one(healthy()),
    expected: [['CB006', R, ['engine pods matched', '5 prefix', 'endpoint reachable']]],
  },
  {
    name: 'pinned: fresh managed backend, no status, selector app=missing, no pods → CB001 CB002 CB003 CB005',
    input: one(backend({ matchLabels: { app: 'missing' }, remoteStorage: { ownership: 'Managed' } })),
    expected: [
      ['CB001', R, ['Ready']],
      ['CB002', R],
      ['CB003', R],
      ['CB005', R, ['status.remoteStorage.endpoint']],
    ],
  },
  {
    name: 'pinned: no status.matchedEnginePods but a live pod with the labels → no CB002',
    input: one(noLiveCount, DIAL_OK, [engine('e1')]),
    expected: [['CB006', R]],
  },
  {
    name: 'pinned: lastEventAt 10 min ago → CB004 with the age',
    input: one(lastEventAgo(10 * MINUTE)),
    expected: [['CB004', R, ['10m0s', '2m0s']]],
  },
  {
    name: 'pinned: dial failure → CB005 with endpoint and error',
    input: one(healthy(), DIAL_FAIL),
    expected: [['CB005', R, [`"${REDIS}"`, 'connection refused', 'status.remoteStorage.endpoint']]],
  },
  {
    name: 'a fresh pod waited for its admission, then dialled → CB006 says how long the endpoint refused it',
    input: one(healthy(), {
      dials: dials({ [REDIS]: { ok: true, settling: { failure: 'refused', tries: 4, accepted: true, afterPodStartMs: 1_440 } } }),
    }),
    expected: [['CB006', R, ["endpoint reachable (connections were refused for 1.4s after the doctor's pod started, then accepted)"]]],
  },
  {
    name: 'a fresh pod never admitted → CB005 with the error and the wait',
    input: one(healthy(), {
      dials: dials({
        [REDIS]: {
          ok: false,
          error: 'dial tcp 10.0.0.9:6379: connect: connection refused',
          settling: { failure: 'unanswered', tries: 9, accepted: false, afterPodStartMs: 10_000 },
        },
      }),
    }),
    expected: [
      ['CB005', R, ["connection refused (connections went unanswered for 10.0s after the doctor's pod started, 9 tries, none accepted)"]],
    ],
  },
  {
    name: 'no wait → no word of one',
    input: one(healthy(), DIAL_FAIL),
    expected: [['CB005', R, ['connection refused'], ['pod started']]],
  },
  {
    name: 'pinned: nil dialer (config-only) → [CB006] endpoint present',
    input: one(healthy(), {}),
    expected: [['CB006', R, ['endpoint present'], ['endpoint reachable']]],
  },
  {
    name: 'pinned: prefixCount 3, no lastEventAt, no latch → CB003 not CB004',
    input: one(omit(healthy({ indexParticipation: { prefixCount: 3 } }), 'firstKVEventObservedAt')),
    expected: [['CB003', R]],
  },
  {
    name: 'pinned: latch set, lastEventAt absent, prefixCount 0 → [CB006]',
    input: one(healthy({ indexParticipation: { prefixCount: 0 } })),
    expected: [['CB006', R, ['0 prefix']]],
  },
  {
    name: 'pinned: prefixCount 0 with a 5 s old event → [CB006]',
    input: one(healthy({ indexParticipation: { prefixCount: 0, lastEventAt: ago(5 * SECOND) } })),
    expected: [['CB006', R, ['0 prefix']]],
  },
  {
    name: 'pinned: pod read failed in the live fallback → per-backend API001, not CB002',
    input: given({ cacheBackends: ok([noLiveCount]), pods: failed('pods is forbidden') }, { probes: DIAL_OK }),
    expected: [['API001', R, ['pods is forbidden']]],
  },
  {
    name: 'pinned: External, Ready True, endpoint dialable → [CB006] "External backend"; FunctionalProbeOK not evaluated',
    input: one(
      healthy({
        remoteStorage: { ownership: 'External' },
        conditions: [cond('Ready', 'True'), cond('FunctionalProbeOK', 'False', 'ProbeFailed', 'set/get failed')],
      }),
    ),
    expected: [['CB006', R, ['External backend', 'endpoint reachable']]],
  },
  {
    name: 'pinned: host-only backend (no spec/status remoteStorage) → [CB006] host-only, no CB005',
    input: one(omit(healthy(), 'remoteStorage', 'endpoint')),
    expected: [['CB006', R, ['host-only']]],
  },
  {
    name: 'pinned: selectorless managed backend → no CB002',
    input: one(omit(healthy({ matchedEnginePods: 0 }), 'matchLabels')),
    expected: [['CB006', R, ['no engineSelector']]],
  },

  // --- Axis A: Ready
  {
    name: 'Ready=False with reason and message → CB001 carrying both',
    input: one(healthy({ conditions: [cond('Ready', 'False', 'NoKVEventsObserved', 'no events seen')] })),
    expected: [['CB001', R, ['Ready=False', 'NoKVEventsObserved', 'no events seen']]],
  },
  {
    name: 'Ready=Unknown → CB001',
    input: one(healthy({ conditions: [cond('Ready', 'Unknown', 'Reconciling', '')] })),
    expected: [['CB001', R, ['Unknown', 'Reconciling']]],
  },
  {
    name: 'first Ready condition wins: [True, False] → healthy',
    input: one(healthy({ conditions: [cond('Ready', 'True'), cond('Ready', 'False', 'X', 'y')] })),
    expected: [['CB006', R]],
  },
  {
    name: 'first Ready condition wins: [False, True] → CB001',
    input: one(healthy({ conditions: [cond('Ready', 'False', 'X', 'y'), cond('Ready', 'True')] })),
    expected: [['CB001', R, ['X']]],
  },
  {
    name: 'condition type matched exactly: "ready" is not Ready → CB001',
    input: one(healthy({ conditions: [cond('ready', 'True')] })),
    expected: [['CB001', R]],
  },

  // --- Axis B: matched engine pods
  {
    name: 'matchedEnginePods 0 from status → CB002 (status wins over live pods)',
    input: one(healthy({ matchedEnginePods: 0 }), DIAL_OK, [engine('e1')]),
    expected: [['CB002', R]],
  },
  {
    name: 'matchedEnginePods 0 from the live fallback (only non-matching pods) → CB002',
    input: one(noLiveCount, DIAL_OK, [pod('web', { labels: { app: 'web' } }), engine('elsewhere', { namespace: 'ns2' })]),
    expected: [['CB002', R]],
  },
  {
    name: 'matchedEnginePods present: pods read failure is irrelevant → [CB006]',
    input: given({ cacheBackends: ok([healthy()]), pods: failed('pods is forbidden') }, { probes: DIAL_OK }),
    expected: [['CB006', R]],
  },
  {
    name: 'negative matchedEnginePods → nothing from axis B',
    input: one(healthy({ matchedEnginePods: -1 })),
    expected: [['CB006', R]],
  },
  {
    name: 'empty matchLabels is no selector: no live count even with pods read failed',
    input: given(
      { cacheBackends: ok([omit(healthy({ matchLabels: {} }), 'matchedEnginePods')]), pods: failed('boom') },
      { probes: DIAL_OK },
    ),
    expected: [['CB006', R, ['no engineSelector']]],
  },
  {
    name: 'selector k:"" matches a pod lacking k → no CB002',
    input: one(omit(healthy({ matchLabels: { app: 'engine', tier: '' } }), 'matchedEnginePods'), DIAL_OK, [engine('e1')]),
    expected: [['CB006', R]],
  },
  {
    name: 'selector k:"" does not match a pod with k set → CB002',
    input: one(omit(healthy({ matchLabels: { app: 'engine', tier: '' } }), 'matchedEnginePods'), DIAL_OK, [
      engine('e1', { labels: { app: 'engine', tier: 'gpu' } }),
    ]),
    expected: [['CB002', R]],
  },
  {
    name: 'live fallback requires every pair: pod with app=engine only vs selector app=engine,model=qwen → CB002',
    input: one(omit(healthy({ matchLabels: { app: 'engine', model: 'qwen' } }), 'matchedEnginePods'), DIAL_OK, [engine('e1')]),
    expected: [['CB002', R]],
  },
  {
    name: 'API001 does not end the check: other backends and the remaining axes still judged',
    input: given(
      {
        cacheBackends: ok([
          backend({ name: 'a', matchLabels: { app: 'engine' }, remoteStorage: { ownership: 'Managed' } }),
          healthy({ name: 'b' }),
        ]),
        pods: failed('pods is forbidden'),
      },
      { probes: DIAL_OK },
    ),
    expected: [
      ['CB001', 'cachebackend/ns1/a'],
      ['API001', 'cachebackend/ns1/a', ['pods is forbidden']],
      ['CB003', 'cachebackend/ns1/a'],
      ['CB005', 'cachebackend/ns1/a'],
      ['CB006', 'cachebackend/ns1/b'],
    ],
  },
  {
    name: 'per-backend API001 alone suppresses CB006',
    input: given({ cacheBackends: ok([noLiveCount]), pods: failed('timeout') }, { probes: {} }),
    expected: [['API001', R, ['timeout']]],
  },

  // --- Axis C: staleness edges and latch
  { name: 'lastEventAt exactly 2m0s old → not stale', input: one(lastEventAgo(2 * MINUTE)), expected: [['CB006', R]] },
  {
    name: 'lastEventAt 2m0.001s old → stale, prints 2m0s',
    input: one(lastEventAgo(2 * MINUTE + 1)),
    expected: [['CB004', R, [/2m0s.*2m0s/]]],
  },
  {
    name: 'lastEventAt 2m0.4s old → stale, prints 2m0s',
    input: one(lastEventAgo(2 * MINUTE + 400)),
    expected: [['CB004', R, [/2m0s.*2m0s/]]],
  },
  {
    name: 'lastEventAt 2m0.5s old → stale, prints 2m1s (half away from zero)',
    input: one(lastEventAgo(2 * MINUTE + 500)),
    expected: [['CB004', R, ['2m1s', '2m0s']]],
  },
  { name: 'lastEventAt in the future → not stale', input: one(lastEventAgo(-10 * MINUTE)), expected: [['CB006', R]] },
  {
    name: 'lastEventAt 3h old → CB004 prints hours',
    input: one(lastEventAgo(3 * HOUR + 5 * SECOND)),
    expected: [['CB004', R, ['3h0m5s']]],
  },
  {
    name: 'first set, last absent (drained) → nothing',
    input: one(healthy({ indexParticipation: {} })),
    expected: [['CB006', R, ['0 prefix']]],
  },
  {
    name: 'first set, indexParticipation absent → nothing',
    input: one(omit(healthy(), 'indexParticipation')),
    expected: [['CB006', R, ['0 prefix']]],
  },
  {
    name: 'first absent, last absent (indexParticipation present) → CB003',
    input: one(omit(healthy({ indexParticipation: { prefixCount: 0 } }), 'firstKVEventObservedAt')),
    expected: [['CB003', R]],
  },
  {
    name: 'first absent, indexParticipation absent → CB003',
    input: one(omit(healthy(), 'firstKVEventObservedAt', 'indexParticipation')),
    expected: [['CB003', R]],
  },
  {
    name: 'first absent, last fresh → nothing',
    input: one(omit(lastEventAgo(30 * SECOND), 'firstKVEventObservedAt')),
    expected: [['CB006', R]],
  },
  {
    name: 'first absent, last stale → CB004 (not CB003)',
    input: one(omit(lastEventAgo(5 * MINUTE), 'firstKVEventObservedAt')),
    expected: [['CB004', R, ['5m0s']]],
  },

  // --- Axis D: functional probe
  {
    name: 'FunctionalProbeOK=False → CB007 with status, reason and message',
    input: one(
      healthy({ conditions: [cond('Ready', 'True'), cond('FunctionalProbeOK', 'False', 'ProbeFailed', 'set/get round trip failed')] }),
    ),
    expected: [['CB007', R, ['FunctionalProbeOK=False', 'ProbeFailed', 'set/get round trip failed']]],
  },
  {
    name: 'FunctionalProbeOK=Unknown → CB007',
    input: one(healthy({ conditions: [cond('Ready', 'True'), cond('FunctionalProbeOK', 'Unknown', 'Pending', '')] })),
    expected: [['CB007', R, ['Unknown']]],
  },
  {
    name: 'FunctionalProbeOK=True → nothing',
    input: one(healthy({ conditions: [cond('Ready', 'True'), cond('FunctionalProbeOK', 'True')] })),
    expected: [['CB006', R]],
  },

  // --- Ownership classification
  {
    name: 'External skips CB002/CB003/CB004/CB007 (selector matching 0, no events, probe failing)',
    input: one(
      backend({
        matchLabels: { app: 'engine' },
        matchedEnginePods: 0,
        remoteStorage: { ownership: 'External' },
        conditions: [cond('Ready', 'True'), cond('FunctionalProbeOK', 'False', 'X', 'y')],
        endpoint: { value: REDIS, field: 'status.remoteStorage.endpoint' },
      }),
    ),
    expected: [['CB006', R, ['External backend']]],
  },
  {
    name: 'External with stale lastEventAt and a pods read failure → still [CB006]',
    input: given(
      {
        cacheBackends: ok([
          omit(healthy({ remoteStorage: { ownership: 'External' }, indexParticipation: { lastEventAt: ago(HOUR) } }), 'matchedEnginePods'),
        ]),
        pods: failed('x'),
      },
      { probes: DIAL_OK },
    ),
    expected: [['CB006', R, ['External backend']]],
  },
  {
    name: 'External, not Ready, no endpoint → [CB001, CB005]',
    input: one(backend({ remoteStorage: { ownership: 'External' } })),
    expected: [
      ['CB001', R],
      ['CB005', R],
    ],
  },
  {
    name: 'External, endpoint dial fails → CB005',
    input: one(
      backend({
        remoteStorage: { ownership: 'External' },
        conditions: [cond('Ready', 'True')],
        endpoint: { value: REDIS, field: 'status.remoteStorage.endpoint' },
      }),
      DIAL_FAIL,
    ),
    expected: [['CB005', R, ['connection refused']]],
  },
  {
    name: 'External config-only → CB006 endpoint present',
    input: one(
      backend({
        remoteStorage: { ownership: 'External' },
        conditions: [cond('Ready', 'True')],
        endpoint: { value: REDIS, field: 'status.remoteStorage.endpoint' },
      }),
      {},
    ),
    expected: [['CB006', R, ['External backend', 'endpoint present']]],
  },
  ...(['external', '', 'Bogus', 'EXTERNAL'] as const).map((ownership): Case => ({
    name: `ownership ${JSON.stringify(ownership)} is managed → CB002, CB003, CB007 apply`,
    input: one(
      backend({
        matchLabels: { app: 'engine' },
        matchedEnginePods: 0,
        remoteStorage: { ownership },
        conditions: [cond('Ready', 'True'), cond('FunctionalProbeOK', 'False', 'X', 'y')],
        endpoint: { value: REDIS, field: 'status.remoteStorage.endpoint' },
      }),
    ),
    expected: [
      ['CB002', R],
      ['CB003', R],
      ['CB007', R],
    ],
  })),
  {
    name: 'host-only never gets CB005, even with a failing dial of a status endpoint',
    input: one(omit(healthy(), 'remoteStorage'), DIAL_FAIL),
    expected: [['CB006', R, ['host-only']]],
  },
  {
    name: 'host-only, not ready, no events → [CB001, CB003] (no CB005)',
    input: one(backend({ matchLabels: { app: 'engine' }, matchedEnginePods: 1 })),
    expected: [
      ['CB001', R],
      ['CB003', R],
    ],
  },

  // --- Axis E: endpoint presence and reachability
  {
    name: 'config-only, endpoint absent → CB005 (presence is still judged)',
    input: one(omit(healthy(), 'endpoint'), {}),
    expected: [['CB005', R]],
  },
  {
    name: 'dial ok → CB006 endpoint reachable',
    input: one(healthy(), DIAL_OK),
    expected: [['CB006', R, ['endpoint reachable']]],
  },
  {
    name: 'legacy status.endpoint: dial failure names that field (docs/deviations.md#dev-4)',
    input: one(healthy({ endpoint: { value: 'old-redis:6379', field: 'status.endpoint' } }), {
      dials: dials({ 'old-redis:6379': { ok: false, error: 'i/o timeout' } }),
    }),
    expected: [['CB005', R, ['status.endpoint', '"old-redis:6379"', 'i/o timeout'], ['status.remoteStorage.endpoint']]],
  },
  {
    name: 'legacy status.endpoint: dial ok → CB006',
    input: one(healthy({ endpoint: { value: 'old-redis:6379', field: 'status.endpoint' } }), {
      dials: dials({ 'old-redis:6379': { ok: true } }),
    }),
    expected: [['CB006', R, ['endpoint reachable']]],
  },
  {
    name: 'legacy status.endpoint config-only → CB006 endpoint present',
    input: one(healthy({ endpoint: { value: 'old-redis:6379', field: 'status.endpoint' } }), {}),
    expected: [['CB006', R, ['endpoint present']]],
  },

  // --- Per-backend emission order
  {
    name: 'order CB001 · CB002 · CB004 · CB007 · CB005',
    input: one(
      healthy({
        conditions: [cond('FunctionalProbeOK', 'False', 'ProbeFailed', 'x'), cond('Ready', 'False', 'NotReady', 'y')],
        matchedEnginePods: 0,
        indexParticipation: { prefixCount: 1, lastEventAt: ago(HOUR) },
      }),
      DIAL_FAIL,
    ),
    expected: [
      ['CB001', R],
      ['CB002', R],
      ['CB004', R, ['1h0m0s']],
      ['CB007', R],
      ['CB005', R],
    ],
  },
  {
    name: 'order CB001 · API001 · CB003 · CB007 · CB005',
    input: given(
      {
        cacheBackends: ok([
          backend({
            matchLabels: { app: 'engine' },
            remoteStorage: { ownership: 'Managed' },
            conditions: [cond('FunctionalProbeOK', 'False', 'ProbeFailed', 'x')],
          }),
        ]),
        pods: failed('pods is forbidden'),
      },
      { probes: {} },
    ),
    expected: [
      ['CB001', R],
      ['API001', R, ['pods is forbidden']],
      ['CB003', R],
      ['CB007', R],
      ['CB005', R],
    ],
  },
];

export const cacheBackendTable: CheckTable = { check: cacheBackendHealth, cases: cacheBackendCases };
