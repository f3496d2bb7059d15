import { describe, expect, it } from 'vitest';
import { cacheBackendHealth } from '../../../src/checks/cachebackend-health.ts';
import { cacheTenantHealth } from '../../../src/checks/cachetenant-health.ts';
import { runCheck } from '../../../src/checks/run.ts';
import { parseApiJson } from '../../../src/cluster/encoding/api-json.ts';
import { eventWanted } from '../../../src/cluster/state/event-views.ts';

import { given, ok } from '../checks/fixtures.ts';
import { projectCacheBackend } from '../../../src/cluster/kinds/cache-backend.ts';
import { projectCacheTenant } from '../../../src/cluster/kinds/cache-tenant.ts';
import { projectEvent } from '../../../src/cluster/kinds/event.ts';
import { projectPod } from '../../../src/cluster/kinds/pod.ts';

const meta = { namespace: 'ns', name: 'b', uid: 'u1' };

describe('CacheBackend projection', () => {
  it('reads the current status shape', () => {
    const b = projectCacheBackend({
      metadata: meta,
      spec: {
        engineSelector: { matchLabels: { app: 'engine' } },
        remoteStorage: { ownership: 'Managed', endpoint: 'spec-is-never-read:1' },
      },
      status: {
        conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: 'm' }],
        matchedEnginePods: 0,
        firstKVEventObservedAt: '2026-06-03T12:00:00Z',
        indexParticipation: { prefixCount: 3, lastEventAt: '2026-06-03T12:01:00Z' },
        remoteStorage: { endpoint: 'redis.ns.svc.cluster.local:6379' },
      },
    });
    expect(b).toEqual({
      ...meta,
      matchLabels: { app: 'engine' },
      remoteStorage: { ownership: 'Managed' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: 'm' }],
      matchedEnginePods: 0,
      firstKVEventObservedAt: '2026-06-03T12:00:00Z',
      indexParticipation: { prefixCount: 3, lastEventAt: '2026-06-03T12:01:00Z' },
      endpoint: { value: 'redis.ns.svc.cluster.local:6379', field: 'status.remoteStorage.endpoint' },
    });
  });
  it('reads the endpoint of installs from before the field moved (status.endpoint)', () => {
    const b = projectCacheBackend({ metadata: meta, spec: { remoteStorage: { ownership: 'External' } }, status: { endpoint: 'old:6379' } });
    expect(b.endpoint).toEqual({ value: 'old:6379', field: 'status.endpoint' });
  });
  it('prefers the current field when both are set', () => {
    const b = projectCacheBackend({ metadata: meta, status: { endpoint: 'old:1', remoteStorage: { endpoint: 'new:2' } } });
    expect(b.endpoint?.value).toBe('new:2');
  });
  it('keeps absent apart from zero and empty', () => {
    const b = projectCacheBackend({ metadata: meta, spec: { engineSelector: {} }, status: { remoteStorage: { endpoint: '' } } });
    expect(b).toEqual({ ...meta, conditions: [] });
    expect(projectCacheBackend({ metadata: meta, spec: { engineSelector: { matchLabels: {} } } }).matchLabels).toEqual({});
    expect(projectCacheBackend({ metadata: meta, status: { indexParticipation: {} } }).indexParticipation).toEqual({});
  });
  it('reads fields of the wrong type as absent instead of crashing', () => {
    const b = projectCacheBackend({
      metadata: { name: 7 },
      spec: 'x',
      status: { conditions: 'nope', matchedEnginePods: '2', remoteStorage: [] },
    });
    expect(b).toEqual({ namespace: '', name: '', uid: '', conditions: [] });
    expect(projectCacheBackend(null)).toEqual({ namespace: '', name: '', uid: '', conditions: [] });
  });
});

describe('Event projection (core/v1 view)', () => {
  const base = {
    metadata: { creationTimestamp: '2026-01-01T00:00:00Z' },
    reason: 'NoMatchingCacheBackend',
    message: 'msg',
    involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'pu' },
  };
  it.each([
    [
      'series.lastObservedTime first',
      { series: { lastObservedTime: '2026-01-04T00:00:00Z' }, lastTimestamp: '2026-01-03T00:00:00Z', eventTime: '2026-01-02T00:00:00Z' },
      '2026-01-04T00:00:00Z',
    ],
    ['then lastTimestamp', { lastTimestamp: '2026-01-03T00:00:00Z', eventTime: '2026-01-02T00:00:00Z' }, '2026-01-03T00:00:00Z'],
    [
      'then eventTime (events.k8s.io recorders set only this)',
      { lastTimestamp: null, eventTime: '2026-01-02T00:00:00.000000Z' },
      '2026-01-02T00:00:00.000000Z',
    ],
    ['then creationTimestamp', {}, '2026-01-01T00:00:00Z'],
  ])('time: %s', (_name, extra, time) => {
    expect(projectEvent({ ...base, ...extra })?.time).toBe(time);
  });
  it.each([
    ['InjectedByCacheBackend', 'Pod', true],
    ['NoMatchingCacheBackend', 'Pod', true],
    ['Scheduled', 'Pod', false],
    ['NoMatchingCacheBackend', 'Deployment', false],
    ['', 'Pod', false],
  ])('keeps an Event with reason %j about a %s when the reason views are planned: %s', (reason, kind, kept) => {
    const wanted = eventWanted(new Set(['injectionEvents', 'noMatchEvents'] as const));
    const event = projectEvent({ ...base, reason, involvedObject: { ...base.involvedObject, kind } }, wanted);
    expect(event === undefined ? false : event.reason === reason).toBe(kept);
  });
  it('keeps every Event when no filter is given', () => {
    expect(projectEvent({ ...base, reason: 'Scheduled', involvedObject: { kind: 'Node', name: 'n1' } })?.reason).toBe('Scheduled');
  });
  it('takes the involved object and the message', () => {
    expect(projectEvent(base)).toEqual({
      reason: 'NoMatchingCacheBackend',
      message: 'msg',
      time: '2026-01-01T00:00:00Z',
      involved: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'pu' },
    });
  });
});

describe('Pod and CacheTenant projections', () => {
  it("keeps only string labels, and only the install's own string annotations", () => {
    const annotations = {
      'inferencecache.io/injected-by': 'ns/be',
      'inferencecache.io/other': 'kept',
      'inferencecache.io/n': 1,
      'kubectl.kubernetes.io/last-applied-configuration': '{"big":"object"}',
      x: 'y',
    };
    expect(projectPod({ metadata: { ...meta, labels: { a: 'b', n: 1 }, annotations }, spec: { containers: [] } })).toEqual({
      pod: {
        ...meta,
        labels: { a: 'b' },
        annotations: { 'inferencecache.io/injected-by': 'ns/be', 'inferencecache.io/other': 'kept' },
      },
    });
  });
  it('reads tenant quota and entries, absent when missing', () => {
    expect(
      projectCacheTenant({ metadata: meta, spec: { tenantID: 't', quota: { maxIndexEntries: 10 } }, status: { indexEntries: 12 } }),
    ).toEqual({
      ...meta,
      tenantID: 't',
      maxIndexEntries: 10,
      indexEntries: 12,
      conditions: [],
    });
    expect(projectCacheTenant({ metadata: meta, spec: { tenantID: 't' } })).toEqual({ ...meta, tenantID: 't', conditions: [] });
  });
});

describe('int64 counts stay exact', () => {
  const text = JSON.stringify({
    metadata: meta,
    spec: { tenantID: 't', quota: { maxIndexEntries: 0 } },
    status: { indexEntries: 0, conditions: [{ type: 'QuotaExceeded', status: 'True', reason: 'R', message: '' }] },
  })
    .replace('"maxIndexEntries":0', '"maxIndexEntries":9223372036854775806')
    .replace('"indexEntries":0', '"indexEntries":9223372036854775807');

  it('parses integers beyond 2^53 from their source text', () => {
    expect(parseApiJson('{"a":9223372036854775807,"b":-9007199254740993,"c":12,"d":1.5,"e":12345678901234567.5}')).toEqual({
      a: 9223372036854775807n,
      b: -9007199254740993n,
      c: 12,
      d: 1.5,
      e: 12345678901234568,
    });
    expect(parseApiJson('{"a":1,"uid":"1234567890123456789"}')).toEqual({ a: 1, uid: '1234567890123456789' });
  });

  it.each([
    ['after a colon, with spaces', '{"a": \n 9223372036854775807}', { a: 9223372036854775807n }],
    ['in an array', '[1,9223372036854775807,[-9223372036854775808]]', [1, 9223372036854775807n, [-9223372036854775808n]]],
    ['as the whole document', '9223372036854775807', 9223372036854775807n],
    [
      'beside a digest whose hex happens to be digits',
      '{"image":"sha256:1234567890123456ab","n":9223372036854775807}',
      { image: 'sha256:1234567890123456ab', n: 9223372036854775807n },
    ],
  ])('finds every long integer: %s', (_, text, want) => {
    expect(parseApiJson(text)).toEqual(want);
  });

  it('a CacheTenant keeps them exact through the projection and into CT001', () => {
    const tenant = projectCacheTenant(parseApiJson(text));
    expect(tenant).toMatchObject({ indexEntries: 9223372036854775807n, maxIndexEntries: 9223372036854775806n });
    const [finding] = runCheck(cacheTenantHealth, given({ cacheTenants: ok([tenant]) }));
    expect(finding?.message).toContain('9223372036854775807 index entries, maxIndexEntries quota 9223372036854775806');
  });

  it('a huge matchedEnginePods is not zero, a zero one is', () => {
    const backend = (matched: string) =>
      projectCacheBackend(
        parseApiJson(
          `{"metadata":{"name":"b"},"spec":{"engineSelector":{"matchLabels":{"a":"b"}}},"status":{"matchedEnginePods":${matched}}}`,
        ),
      );
    const codes = (matched: string) => runCheck(cacheBackendHealth, given({ cacheBackends: ok([backend(matched)]) })).map((f) => f.code);
    expect(codes('18446744073709551615')).not.toContain('CB002');
    expect(codes('0')).toContain('CB002');
  });
});
