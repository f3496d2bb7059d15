// The built bundle against the real test control plane: every CacheBackend axis with status written
// through the status subresource, the EP/OP/CT/CP rules, pagination, RBAC gaps, in-cluster mode, and
// the deviations that only a real API server can show.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closedPort } from '../../dev/process.ts';
import { requireBundle } from '../../dev/bundle.ts';
import { runBundle } from '../support/bundle.ts';
import {
  ago,
  condition,
  coreEvent,
  createBackend,
  createPod,
  createPolicy,
  createTenant,
  eventsV1Event,
  uniqueName,
} from '../../dev/cluster/objects.ts';
import { pairs, type JsonReport } from '../support/json-report.ts';
import { createNamespace, installCrds } from '../../dev/cluster/manifests.ts';
import { PROBE_BUDGET_MS } from '../../src/doctor/probe-plan.ts';
import { formatGoDuration } from '../../src/go/duration.ts';
import { writesBy } from '../../dev/cluster/audit.ts';
import { doctorRuns } from '../support/doctor-runs.ts';
import { plannedCalls } from '../support/planned-calls.ts';
import type { Identity } from '../../dev/cluster/identity.ts';
import { expectEndedOnBudget } from '../support/timing.ts';
import { parseReport } from '../support/report-schema.ts';
import { expectRoundTrip } from '../support/round-trip.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';

/**
 * The ages, as Go prints them rounded to the second, an event written at `at` can have for a run
 * between `from` and `to`: the doctor reads its clock once, somewhere in that window.
 */
function possibleAges(at: number, { from, to }: { from: number; to: number }): string[] {
  const ages: string[] = [];
  for (let s = Math.round((from - at) / 1000); s <= Math.round((to - at) / 1000); s++) ages.push(formatGoDuration(s * 1000));
  return ages;
}

describe.skipIf(kubeconfig === '')(`doctor against the test control plane${skipReason}`, () => {
  const kc = new KubeConfig();
  const runs = doctorRuns(kc);
  const { identity, auditOf, users: doctorUsers } = runs;
  const run = (id: Identity, args: string[], env: NodeJS.ProcessEnv = {}) => runs.run(id, args, env);
  let doctor: Identity;
  let listener: Server;
  let openEndpoint = '';
  let closedEndpoint = '';

  beforeAll(async () => {
    requireBundle();
    kc.loadFromFile(kubeconfig);
    await installCrds(kc);
    const home = uniqueName('doctor-home');
    await createNamespace(kc, home);
    doctor = await identity(home, 'doctor');
    listener = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    openEndpoint = `127.0.0.1:${(listener.address() as { port: number }).port}`;
    closedEndpoint = `127.0.0.1:${await closedPort()}`;
  });
  afterAll(() => new Promise<void>((r) => (listener === undefined ? r() : listener.close(() => r()))));

  describe('CacheBackendHealth on real status', () => {
    const ns = uniqueName('cb');
    const res = (name: string) => `cachebackend/${ns}/${name}`;
    const healthyStatus = () => ({
      conditions: [condition('Ready', 'True')],
      matchedEnginePods: 2,
      firstKVEventObservedAt: ago(3_600_000),
      indexParticipation: { prefixCount: 7, lastEventAt: ago(10_000) },
    });
    let report: JsonReport;
    /** When f-stale's last KV event was written, and when the run that judged it started and ended. */
    let staleAt = '';
    let runWindow = { from: 0, to: 0 };

    beforeAll(async () => {
      await createNamespace(kc, ns);
      const managed = { provider: 'Redis', ownership: 'Managed' };
      await createBackend(
        kc,
        ns,
        'a-healthy',
        { engineSelector: { matchLabels: { app: 'a' } }, remoteStorage: managed },
        {
          ...healthyStatus(),
          remoteStorage: { endpoint: openEndpoint },
        },
      );
      await createBackend(
        kc,
        ns,
        'b-not-ready',
        {},
        { ...healthyStatus(), conditions: [condition('Ready', 'False', 'NoKVEventsObserved', 'no events seen')] },
      );
      await createBackend(
        kc,
        ns,
        'c-no-pods',
        { engineSelector: { matchLabels: { app: 'missing' } } },
        { ...healthyStatus(), matchedEnginePods: undefined },
      );
      await createPod(kc, ns, 'engine-d', { app: 'd' });
      await createBackend(
        kc,
        ns,
        'd-live-pod',
        { engineSelector: { matchLabels: { app: 'd' } } },
        { ...healthyStatus(), matchedEnginePods: undefined },
      );
      await createBackend(kc, ns, 'e-fresh', { engineSelector: { matchLabels: { app: 'none' } }, remoteStorage: managed });
      staleAt = ago(600_000);
      await createBackend(kc, ns, 'f-stale', {}, { ...healthyStatus(), indexParticipation: { prefixCount: 1, lastEventAt: staleAt } });
      await createBackend(
        kc,
        ns,
        'g-unreachable',
        { remoteStorage: managed },
        { ...healthyStatus(), remoteStorage: { endpoint: closedEndpoint } },
      );
      await createBackend(kc, ns, 'h-legacy', { remoteStorage: managed }, { ...healthyStatus(), endpoint: closedEndpoint });
      await createBackend(
        kc,
        ns,
        'i-selftest',
        {},
        {
          ...healthyStatus(),
          conditions: [condition('Ready', 'True'), condition('FunctionalProbeOK', 'False', 'ProbeFailed', 'lookup missed')],
        },
      );
      await createBackend(
        kc,
        ns,
        'j-external',
        { remoteStorage: { provider: 'Redis', ownership: 'External', endpoint: openEndpoint } },
        {
          conditions: [condition('Ready', 'True')],
          remoteStorage: { endpoint: openEndpoint },
        },
      );
      await createBackend(kc, ns, 'k-host-only', {}, { ...healthyStatus(), remoteStorage: { endpoint: closedEndpoint } });
      await createPolicy(kc, ns, 'only');
      const endpoint = `127.0.0.1:${await closedPort()}`;
      runWindow = { from: Date.now(), to: 0 };
      report = (await run(doctor, ['-n', ns, '--server-endpoint', endpoint])).report;
      runWindow = { ...runWindow, to: Date.now() };
    });

    it('judges every axis in the fixed per-backend order', () => {
      expect(pairs(report, (f) => f.check === 'CacheBackendHealth')).toEqual([
        ['CB006', res('a-healthy')],
        ['CB001', res('b-not-ready')],
        ['CB002', res('c-no-pods')],
        ['CB006', res('d-live-pod')],
        ['CB001', res('e-fresh')],
        ['CB002', res('e-fresh')],
        ['CB003', res('e-fresh')],
        ['CB005', res('e-fresh')],
        ['CB004', res('f-stale')],
        ['CB005', res('g-unreachable')],
        ['CB005', res('h-legacy')],
        ['CB007', res('i-selftest')],
        ['CB006', res('j-external')],
        ['CB006', res('k-host-only')],
      ]);
    });
    it('carries the facts in the messages', () => {
      const msg = (code: string, name: string) => report.findings.find((f) => f.code === code && f.resource === res(name))?.message ?? '';
      expect(msg('CB006', 'a-healthy')).toMatch(/engine pods matched, 7 prefix\(es\) indexed, endpoint reachable/);
      expect(msg('CB001', 'b-not-ready')).toContain('Ready=False (reason NoKVEventsObserved): no events seen');
      const age = msg('CB004', 'f-stale').match(/is (\S+) old/)?.[1];
      expect(possibleAges(Date.parse(staleAt), runWindow)).toContain(age);
      expect(msg('CB005', 'g-unreachable')).toContain(`status.remoteStorage.endpoint "${closedEndpoint}"`);
      expect(msg('CB005', 'h-legacy')).toContain(`status.endpoint "${closedEndpoint}"`);
      expect(msg('CB007', 'i-selftest')).toMatch(/FunctionalProbeOK=False \(reason ProbeFailed\).*lookup missed/);
      expect(msg('CB006', 'j-external')).toBe('External backend: Ready, endpoint reachable');
      expect(msg('CB006', 'k-host-only')).toContain('host-only');
    });
    it('with --config-only judges endpoint presence only', async () => {
      const { report: cfg } = await run(doctor, ['-n', ns, '--config-only']);
      expect(pairs(cfg, (f) => f.code === 'CB005')).toEqual([['CB005', res('e-fresh')]]);
      expect(cfg.findings.find((f) => f.resource === res('a-healthy'))?.message).toMatch(/endpoint present$/);
      expect(cfg.findings.some((f) => /^(SV|SN|PL|PB)/.test(f.code))).toBe(false);
    });
  });

  describe('EnginePodInjectionAudit and OrphanPodCheck', () => {
    const ns = uniqueName('ep');
    let report: JsonReport;

    beforeAll(async () => {
      await createNamespace(kc, ns);
      const { uid } = await createBackend(kc, ns, 'be', { engineSelector: { matchLabels: { app: 'engine' } } });
      await createBackend(kc, ns, 'alpha', { engineSelector: { matchLabels: { tier: 'shared' } } });
      await createBackend(kc, ns, 'beta', { engineSelector: { matchLabels: { tier: 'shared', model: 'qwen' } } });
      await createPod(
        kc,
        ns,
        'inj',
        { app: 'engine' },
        { 'inferencecache.io/injected-by': `${ns}/be`, 'inferencecache.io/injected-by-uid': uid },
      );
      await createPod(
        kc,
        ns,
        'forged',
        { app: 'engine' },
        { 'inferencecache.io/injected-by': `${ns}/be`, 'inferencecache.io/injected-by-uid': 'wrong-uid' },
      );
      const byCore = await createPod(kc, ns, 'inj-evt', { app: 'engine' });
      const byV1 = await createPod(kc, ns, 'inj-evt-v1', { app: 'engine' });
      await createPod(kc, ns, 'uninj', { app: 'engine' });
      await createPod(kc, ns, 'other', { app: 'web' });
      await createPod(kc, ns, 'overlap', { tier: 'shared', model: 'qwen' });
      await coreEvent(kc, ns, { name: 'inj-evt', uid: byCore }, 'InjectedByCacheBackend', 'injected');
      await eventsV1Event(kc, ns, { name: 'inj-evt-v1', uid: byV1 }, 'InjectedByCacheBackend', 'injected');
      const orphan = await createPod(kc, ns, 'orphan', { app: 'lonely' });
      await coreEvent(kc, ns, { name: 'orphan', uid: orphan }, 'NoMatchingCacheBackend', 'asked for the cache, matched nothing');
      await eventsV1Event(kc, ns, { name: 'orphan', uid: orphan }, 'NoMatchingCacheBackend', 'recorded through events.k8s.io');
      await coreEvent(
        kc,
        ns,
        { name: 'orphan', uid: orphan },
        'NoMatchingCacheBackend',
        'two days old',
        new Date(Date.now() - 48 * 3_600_000),
      );
      report = (await run(doctor, ['-n', ns, '--config-only'])).report;
    });

    it('in API (name) order: validates the annotation against the backend uid, accepts an injection Event from either API, flags overlaps', () => {
      expect(pairs(report, (f) => f.check === 'EnginePodInjectionAudit')).toEqual([
        ['EP001', `pod/${ns}/forged`],
        ['EP002', `pod/${ns}/inj`],
        ['EP002', `pod/${ns}/inj-evt`],
        ['EP002', `pod/${ns}/inj-evt-v1`],
        ['EP003', `pod/${ns}/overlap`],
        ['EP001', `pod/${ns}/uninj`],
      ]);
      expect(report.findings.find((f) => f.code === 'EP003')?.message).toContain('["alpha" "beta"]');
    });
    it('counts each NoMatchingCacheBackend Event once, within 24 hours (docs/deviations.md#dev-3)', () => {
      expect(pairs(report, (f) => f.code === 'OP001')).toEqual([
        ['OP001', `pod/${ns}/orphan`],
        ['OP001', `pod/${ns}/orphan`],
      ]);
      const messages = report.findings.filter((f) => f.code === 'OP001').map((f) => f.message);
      expect(messages.some((m) => m.includes('matched nothing'))).toBe(true);
      expect(messages.some((m) => m.includes('recorded through events.k8s.io'))).toBe(true);
    });
  });

  describe('CacheTenantHealth and CachePolicyCoverage', () => {
    const [bare, covered, crowded] = [uniqueName('cp-bare'), uniqueName('cp-covered'), uniqueName('cp-crowded')];
    let report: JsonReport;
    beforeAll(async () => {
      for (const ns of [bare, covered, crowded]) {
        await createNamespace(kc, ns);
        await createBackend(kc, ns, 'be', {});
      }
      await createPolicy(kc, covered, 'p');
      for (const p of ['p1', 'p2', 'p3']) await createPolicy(kc, crowded, p);
      await createTenant(
        kc,
        bare,
        'over',
        { tenantID: 'team-over', quota: { maxIndexEntries: 100 } },
        {
          indexEntries: 150,
          conditions: [condition('QuotaExceeded', 'True', 'OverQuota', 'evicting oldest')],
        },
      );
      await createTenant(kc, bare, 'within', { tenantID: 'team-ok' }, { conditions: [condition('QuotaExceeded', 'False')] });
      report = (await run(doctor, ['--config-only'])).report;
    });
    it('reports quota per tenant', () => {
      const tenants = report.findings.filter((f) => f.resource?.startsWith(`cachetenant/${bare}/`));
      expect(tenants.map((f) => [f.code, f.resource])).toEqual([
        ['CT001', `cachetenant/${bare}/over`],
        ['CT002', `cachetenant/${bare}/within`],
      ]);
      expect(tenants[0]?.message).toMatch(/"team-over".*150.*100.*— evicting oldest/);
    });
    it('counts policies per backend namespace, in byte order', () => {
      const mine = pairs(
        report,
        (f) => f.check === 'CachePolicyCoverage' && [bare, covered, crowded].some((ns) => f.resource === `namespace/${ns}`),
      );
      const expected: [string, string][] = [
        ['CP001', `namespace/${bare}`],
        ['CP002', `namespace/${covered}`],
        ['CP003', `namespace/${crowded}`],
      ];
      expect(mine).toEqual(expected.sort(([, a], [, b]) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    });
  });

  describe('pagination', () => {
    it('reads more objects than one page, page by page', async () => {
      const ns = uniqueName('many');
      await createNamespace(kc, ns);
      const id = await identity(ns, 'pager');
      await Promise.all(
        Array.from({ length: 520 }, (_, i) => createTenant(kc, ns, `t-${String(i).padStart(3, '0')}`, { tenantID: `t${i}` })),
      );
      const { report } = await run(id, ['-n', ns, '--config-only']);
      expect(report.findings.filter((f) => f.code === 'CT002')).toHaveLength(520);
      const tenantLists = auditOf(id.username).filter((e) => e.resource === 'cachetenants');
      expect(tenantLists).toHaveLength(2);
      expect(tenantLists[1]?.uri).toContain('continue=');
    });
  });

  describe('RBAC gaps', () => {
    it('turns exactly the denied reads into API001 and still judges the rest', async () => {
      const ns = uniqueName('rbac');
      await createNamespace(kc, ns);
      await createBackend(
        kc,
        ns,
        'be',
        { engineSelector: { matchLabels: { app: 'engine' } } },
        { conditions: [condition('Ready', 'True')] },
      );
      await createTenant(kc, ns, 't', { tenantID: 't' });
      const limited = await identity(ns, 'limited', ['events', 'pods', 'cachetenants']);
      const { report, code } = await run(limited, ['-n', ns, '--config-only']);
      expect(code).toBe(2);
      expect(report.findings.map((f) => [f.code, f.check, f.resource ?? ''])).toEqual([
        ['API001', 'CacheBackendHealth', `cachebackend/${ns}/be`],
        ['CB003', 'CacheBackendHealth', `cachebackend/${ns}/be`],
        ['API001', 'EnginePodInjectionAudit', 'Pod'],
        ['API001', 'OrphanPodCheck', 'Event'],
        ['API001', 'CacheTenantHealth', 'CacheTenant'],
        ['CP001', 'CachePolicyCoverage', `namespace/${ns}`],
        ['API001', 'NodeFit', 'Pod'],
        ['API001', 'ImagePullability', 'Pod'],
      ]);
      expect(report.findings.find((f) => f.resource === 'Event')?.message).toMatch(/forbidden/);
    });
  });

  describe('namespace scope (docs/deviations.md#dev-6)', () => {
    it('reports a --namespace that does not exist', async () => {
      const { report, code } = await run(doctor, ['-n', 'no-such-namespace', '--config-only']);
      expect(code).toBe(2);
      expect(pairs(report)).toEqual([['NS001', 'namespace/no-such-namespace']]);
    });
    it('says when it could not verify the namespace', async () => {
      const ns = uniqueName('nsget');
      await createNamespace(kc, ns);
      const id = await identity(ns, 'noget', ['namespaces']);
      const { report, stderr } = await run(id, ['-n', ns, '--config-only']);
      expect(pairs(report)).toEqual([['NS002', `namespace/${ns}`]]);
      expect(stderr).toMatch(
        /^warning: suppression annotations on Namespaces were not applied: reading the Namespaces failed: .*forbidden/m,
      );
    });
  });

  describe('in-cluster mode', () => {
    it('uses KUBERNETES_SERVICE_HOST/PORT with the mounted token and CA, without a kubeconfig or HOME', async () => {
      const sa = join(mkdtempSync(join(tmpdir(), 'icd-incluster-')), 'serviceaccount');
      mkdirSync(sa);
      writeFileSync(join(sa, 'token'), doctor.token);
      writeFileSync(join(sa, 'ca.crt'), readFileSync(inject('caFile')));
      writeFileSync(join(sa, 'namespace'), 'default');
      const url = new URL(inject('server'));
      const result = await runBundle(['doctor', '--config-only', '-o', 'json', '-n', 'default'], {
        env: { PATH: process.env['PATH'] ?? '', KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port },
        pod: { '/var/run/secrets/kubernetes.io/serviceaccount': sa },
      });
      expect(result.stderr).toBe('');
      const report = parseReport(result.stdout) as JsonReport;
      expect(report.findings.filter((f) => f.code === 'API001')).toEqual([]);
      expect(result.code).toBe(0);
    });
  });

  describe('probes with their own deadlines (docs/deviations.md#dev-2)', () => {
    it('a black-holed server costs the probe budget, not the Kubernetes reads', async () => {
      const hole = createServer(() => undefined);
      await new Promise<void>((r) => hole.listen(0, '127.0.0.1', r));
      const port = (hole.address() as { port: number }).port;
      const ns = uniqueName('hole');
      await createNamespace(kc, ns);
      await createTenant(kc, ns, 't', { tenantID: 't' });
      try {
        const { report, elapsedMs } = await run(doctor, ['-n', ns, '--server-endpoint', `127.0.0.1:${port}`, '--timeout', '30s']);
        expect(report.findings.map((f) => f.code)).toEqual(['SV001', 'SN001', 'PL001', 'PB001', 'CT002', 'NP004']);
        expect(
          report.findings.filter((f) => f.message.includes(`no answer within ${formatGoDuration(PROBE_BUDGET_MS)}`)).map((f) => f.code),
        ).toEqual(['SV001']);
        expectEndedOnBudget(elapsedMs, PROBE_BUDGET_MS);
      } finally {
        hole.close();
      }
    });
  });

  describe('what the doctor asks of the API server', () => {
    it('reads each collection once per run and never writes (docs/deviations.md#dev-10)', async () => {
      const ns = uniqueName('reads');
      await createNamespace(kc, ns);
      for (let i = 0; i < 5; i++) {
        await createBackend(kc, ns, `b${i}`, { engineSelector: { matchLabels: { app: `a${i}` } } });
      }
      const id = await identity(ns, 'counted');
      await run(id, ['-n', ns, '--server-endpoint', `127.0.0.1:${await closedPort()}`]);
      const calls = auditOf(id.username);
      const perResource = new Map<string, number>();
      for (const c of calls) perResource.set(`${c.verb} ${c.resource}`, (perResource.get(`${c.verb} ${c.resource}`) ?? 0) + 1);
      expect(Object.fromEntries(perResource)).toEqual(plannedCalls({ configOnly: false, namespaced: true }));
      expect(perResource.get('list cachebackends')).toBe(1);
    });
    it('sends no create, update, patch or delete in any run of this suite', () => {
      expect(doctorUsers.size).toBeGreaterThanOrEqual(5);
      const mutating = writesBy(inject('auditLogPath'), doctorUsers);
      expect(mutating).toEqual([]);
    });
  });
});

describe.skipIf(kubeconfig === '')(`offline: dump, then doctor -f, gives the live findings${skipReason}`, () => {
  // Runs after the suite above (files and their tests run in order), on every scenario it built.
  const kc = new KubeConfig();
  const runs = doctorRuns(kc);
  let scenarios: string[] = [];

  beforeAll(async () => {
    kc.loadFromFile(kubeconfig);
    const namespaces = await kc.makeApiClient(CoreV1Api).listNamespace();
    scenarios = namespaces.items.map((n) => n.metadata?.name ?? '').filter((name) => name !== '' && !name.startsWith('kube-'));
  });

  it('every namespace at once, as the cluster admin and as the doctor', async () => {
    const all = await expectRoundTrip(kubeconfig, []);
    expect(all.findings.map((f) => f.code)).toEqual(expect.arrayContaining(['CB003', 'CB004', 'EP001', 'OP001', 'CT001', 'CP001']));
    const home = uniqueName('offline');
    await createNamespace(kc, home);
    const doctor = await runs.identity(home, 'doctor');
    await expectRoundTrip(doctor.kubeconfig, []);
  });

  it('each scenario namespace with -n, and a namespace that does not exist', { timeout: 300_000 }, async () => {
    expect(scenarios.length).toBeGreaterThan(5);
    for (const ns of [...scenarios, 'no-such-namespace']) await expectRoundTrip(kubeconfig, ['-n', ns]);
  });
});

describe.skipIf(kubeconfig === '')(`a cluster without the CRDs${skipReason}`, () => {
  it('reports API001 for every CRD-backed read and still judges the rest', async () => {
    const { startControlPlane } = await import('../../dev/cluster/controlplane.ts');
    const bare = await startControlPlane();
    try {
      const result = await runBundle(['doctor', '--kubeconfig', bare.kubeconfigPath, '--config-only', '-o', 'json'], {
        env: { PATH: process.env['PATH'] ?? '' },
      });
      const report = parseReport(result.stdout) as JsonReport;
      expect(report.findings.map((f) => [f.code, f.check, f.resource ?? ''])).toEqual([
        ['API001', 'CacheBackendHealth', 'CacheBackend'],
        ['API001', 'EnginePodInjectionAudit', 'CacheBackend'],
        ['API001', 'CacheTenantHealth', 'CacheTenant'],
        ['API001', 'CachePolicyCoverage', 'CacheBackend'],
        ['API001', 'RemoteStorageReadiness', 'CacheBackend'],
      ]);
      expect(report.findings[0]?.message).toMatch(/cachebackends\.inferencecache\.io\/v1alpha1.*CRD/);
      expect(result.code).toBe(2);
    } finally {
      await bare.stop();
    }
  }, 120_000);
});
