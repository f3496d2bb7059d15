// The views of the pod and Event lists: what each keeps, in list order, with and without the
// CacheBackends; the keeper that drops a pod as it is read when no planned view can hold it; the
// doctor's own pod in no view.
import { describe, expect, it } from 'vitest';
import { eventViews, eventWanted } from '../../../src/cluster/state/event-views.ts';
import { POD_VIEWS, podKeeper, podViews, type BackendsSeen, type PodRead, type PodViewName } from '../../../src/cluster/state/pod-views.ts';

import { event, injectedEvent, ok, pod } from '../checks/fixtures.ts';
import type { CacheBackend } from '../../../src/cluster/kinds/cache-backend.ts';
import type { PodRequests } from '../../../src/cluster/kinds/pod.ts';

const INSTALL = { 'app.kubernetes.io/name': 'inference-cache' };
const REQUESTS: PodRequests = { containers: [{ cpu: '1' }], initContainers: [] };
const READS: readonly PodRead[] = [
  { pod: pod('server', { labels: { ...INSTALL, 'app.kubernetes.io/component': 'server' } }) },
  { pod: pod('web', { labels: { app: 'web' } }), requests: REQUESTS },
  { pod: pod('engine', { labels: { app: 'engine' } }), requests: REQUESTS },
  { pod: pod('cache', { labels: { ...INSTALL, 'app.kubernetes.io/component': 'redis', app: 'engine' } }) },
  { pod: pod('doctor', { labels: { ...INSTALL, 'app.kubernetes.io/component': 'controller' } }) },
];
const BACKEND: CacheBackend = { namespace: 'ns1', name: 'be', uid: 'b', conditions: [], matchLabels: { app: 'engine' } };
const KNOWN = { kind: 'known', items: [BACKEND] } as const;
const OWN = { namespace: 'ns1', name: 'doctor' };
const ALL: ReadonlySet<PodViewName> = new Set(POD_VIEWS);

describe('podViews', () => {
  const views = podViews(ok(READS), KNOWN, ALL, OWN);
  const names = (read: { ok: boolean; items?: readonly unknown[] } | undefined) =>
    read?.ok === true
      ? (read.items ?? []).map((item) => ((item as { pod?: { name: string } }).pod ?? (item as { name: string })).name)
      : read;

  it('pods: every pod but the doctor’s own', () => expect(names(views.pods)).toEqual(['server', 'web', 'engine', 'cache']));
  it('installPods: the labelled ones and the selected ones, with their roles', () => {
    expect(views.installPods?.ok === true && views.installPods.items.map((p) => `${p.pod.name}:${p.role}`)).toEqual([
      'server:server',
      'engine:engine',
      'cache:workload',
    ]);
  });
  it('selectedPods: the ones a CacheBackend selects, labelled or not', () =>
    expect(names(views.selectedPods)).toEqual(['engine', 'cache']));
  it('pendingPodRequests: the requests the projection kept, by pod', () => {
    expect(views.pendingPodRequests).toEqual(
      ok([
        { namespace: 'ns1', name: 'web', requests: REQUESTS },
        { namespace: 'ns1', name: 'engine', requests: REQUESTS },
      ]),
    );
  });
  it('only the views asked for', () => {
    expect(Object.keys(podViews(ok(READS), KNOWN, new Set(['selectedPods'] as const)))).toEqual(['selectedPods']);
  });
  it('without the CacheBackends: the labelled pods only, and the selected ones unknown', () => {
    const failed = podViews(ok(READS), { kind: 'failed', error: 'listing CacheBackend objects failed: forbidden' }, ALL, OWN);
    expect(names(failed.installPods)).toEqual(['server', 'cache']);
    expect(failed.selectedPods).toEqual({
      ok: false,
      error: 'which pods the CacheBackends select is unknown: listing CacheBackend objects failed: forbidden',
    });
    expect(names(failed.pods)).toEqual(['server', 'web', 'engine', 'cache']);
  });
  it('a failed list fails every view', () => {
    const failed = podViews({ ok: false, error: 'boom' }, KNOWN, ALL);
    expect(Object.values(failed)).toEqual(POD_VIEWS.map(() => ({ ok: false, error: 'boom' })));
  });
});

describe('podKeeper', () => {
  const kept = (views: readonly PodViewName[], seen: BackendsSeen) => {
    const keep = podKeeper(new Set(views), OWN, () => seen);
    return READS.filter((r) => keep(r)).map((r) => r.pod.name);
  };
  it('keeps every pod for `pods`, never the doctor’s own', () =>
    expect(kept(['pods'], KNOWN)).toEqual(['server', 'web', 'engine', 'cache']));
  it('keeps the pods with requests for `pendingPodRequests`', () => expect(kept(['pendingPodRequests'], KNOWN)).toEqual(['web', 'engine']));
  it('keeps the labelled and the selected pods once the CacheBackends are known', () =>
    expect(kept(['installPods'], KNOWN)).toEqual(['server', 'engine', 'cache']));
  it('keeps every pod a selection may want while the CacheBackends are on their way', () =>
    expect(kept(['selectedPods'], { kind: 'pending' })).toEqual(['server', 'web', 'engine', 'cache']));
  it('keeps the labelled pods only when the CacheBackends failed', () =>
    expect(kept(['installPods', 'selectedPods'], { kind: 'failed', error: 'x' })).toEqual(['server', 'cache']));
  it('keeps nothing when no view of the pods is planned', () => expect(kept([], KNOWN)).toEqual([]));
});

describe('eventViews', () => {
  const events = ok([
    event(),
    injectedEvent('u1'),
    event({ reason: 'Scheduled' }),
    event({ kind: 'Node', name: 'n1' }),
    injectedEvent('u2', { kind: 'ReplicaSet' }),
  ]);
  it('each reason view keeps its reason, about Pods; `events` keeps everything', () => {
    const views = eventViews(events, new Set(['events', 'injectionEvents', 'noMatchEvents'] as const));
    expect(views.events).toBe(events);
    expect(views.injectionEvents?.ok === true && views.injectionEvents.items.map((e) => e.involved.uid)).toEqual(['u1']);
    expect(views.noMatchEvents?.ok === true && views.noMatchEvents.items.map((e) => e.involved.kind)).toEqual(['Pod']);
  });
  it('drops, as they are read, the Events no planned view holds', () => {
    const wanted = eventWanted(new Set(['noMatchEvents'] as const));
    expect(wanted('NoMatchingCacheBackend', 'Pod')).toBe(true);
    expect(wanted('NoMatchingCacheBackend', 'Node')).toBe(false);
    expect(wanted('InjectedByCacheBackend', 'Pod')).toBe(false);
    expect(eventWanted(new Set(['events'] as const))('Scheduled', 'Node')).toBe(true);
  });
});
