// A tenth of the scale scenario (docs/architecture.md#bars) in a control plane of its own: the report holds exactly
// the findings the scenario implies, code by code, and the doctor asks the API server for each page of
// each collection once, and the run, as the image runs it, stays under a memory bound with room to
// spare. (Time, and memory at full size, are the benchmark's business: `npm run bench:scale`.)
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PAGE_SIZE } from '../../src/cluster/transport/kube-api.ts';
import { planRun } from '../../src/checks/registry.ts';
import { KINDS, type CollectionName } from '../../src/cluster/kinds/kinds.ts';
import { listsOf } from '../../src/cluster/state/reads.ts';
import { completedRequestsBy } from '../../dev/cluster/audit.ts';
import { IMAGE_ENV, IMAGE_NODE_FLAGS } from '../../scripts/bundle/node-flags.ts';
import { requireBundle } from '../../dev/bundle.ts';
import { runBundle } from '../support/bundle.ts';
import { startControlPlane, type ControlPlane } from '../../dev/cluster/controlplane.ts';
import { installCrds } from '../../dev/cluster/manifests.ts';
import { doctorIdentity, type Identity } from '../../dev/cluster/identity.ts';
import { buildScenario, expectedCounts, scaled } from '../../dev/cluster/scale-scenario.ts';
import { parseReport } from '../support/report-schema.ts';

const available = inject('kubeconfig') !== '';
const skipReason = available ? '' : ` (skipped: ${inject('controlPlaneSkipReason')})`;
const SIZE = scaled(0.1);

/**
 * The most peak RSS a run of a tenth of the scenario may take, as the image runs it. Measured at 93
 * to 99 MiB (docs/performance.md), of which about 78 MiB is Node and the loaded program, the same in
 * every run: the bound leaves a sixth to spare, and still fails a run that holds whole pages or whole
 * objects again (118 to 148 MiB at this size when it did).
 */
const TENTH_PEAK_RSS_MIB = 115;

const USAGE_PRELOAD = resolve(import.meta.dirname, '../../scripts/bench/usage-preload.mjs');

describe.skipIf(!available)(`a tenth of the scale scenario${skipReason}`, () => {
  let cp: ControlPlane;
  let id: Identity;
  const counts: Record<string, number> = {};
  let requests: { verb: string; resource: string }[] = [];
  let peakRssMiB = 0;

  beforeAll(async () => {
    requireBundle();
    cp = await startControlPlane();
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    await installCrds(kc);
    await buildScenario({ server: cp.server, caFile: cp.caFile, token: cp.adminToken }, SIZE);
    id = await doctorIdentity(kc, { namespace: 'default', name: 'scale', server: cp.server, caFile: cp.caFile });
    const usageFile = join(cp.dir, 'doctor-usage.json');
    const run = await runBundle(['doctor', '--kubeconfig', id.kubeconfig, '--config-only', '-o', 'json'], {
      command: [process.execPath, ...IMAGE_NODE_FLAGS, '--import', USAGE_PRELOAD, requireBundle()],
      env: { ...IMAGE_ENV, PATH: process.env['PATH'] ?? '', BENCH_USAGE_FILE: usageFile },
      timeoutMs: 120_000,
    });
    expect(run.code).toBe(1);
    peakRssMiB = (JSON.parse(readFileSync(usageFile, 'utf8')) as { maxRssKiB: number }).maxRssKiB / 1024;
    for (const f of (parseReport(run.stdout) as { findings: { code: string }[] }).findings) counts[f.code] = (counts[f.code] ?? 0) + 1;
    requests = completedRequestsBy(cp.auditLogPath, new Set([id.username])).map((e) => ({
      verb: e.verb,
      resource: e.objectRef?.resource ?? '',
    }));
  }, 180_000);

  afterAll(async () => {
    await cp.stop();
  });

  it('finds what the scenario holds, code by code', () => {
    const want = Object.fromEntries(Object.entries(expectedCounts(SIZE)).filter(([, n]) => n > 0));
    expect(counts).toEqual(want);
  });

  it(`peaks under ${TENTH_PEAK_RSS_MIB} MiB of RSS, run as the image runs it`, () => {
    expect(peakRssMiB).toBeGreaterThan(0);
    expect(peakRssMiB).toBeLessThan(TENTH_PEAK_RSS_MIB);
  });

  it('passes with --fail-on fail, its WARNs still reported and the threshold named', async () => {
    const run = await runBundle(['doctor', '--kubeconfig', id.kubeconfig, '--config-only', '-o', 'json', '--fail-on', 'fail'], {
      timeoutMs: 120_000,
    });
    expect(run.code).toBe(0);
    const report = parseReport(run.stdout) as { summary: { warn: number; exitCode: number; failOn: string }; findings: unknown[] };
    expect(report.summary).toMatchObject({ exitCode: 0, failOn: 'FAIL' });
    expect(report.summary.warn).toBeGreaterThan(0);
    expect(report.findings.length).toBe(Object.values(counts).reduce((a, b) => a + b, 0));
  }, 120_000);

  it('lists each collection once, page by page, and reads nothing else', () => {
    const pages = (objects: number) => Math.max(1, Math.ceil(objects / PAGE_SIZE));
    // The objects of each Kind the scenario holds; any other Kind it holds few of (nodes, namespaces).
    const objects: Partial<Record<CollectionName, number>> = {
      cacheBackends: SIZE.backends,
      pods: SIZE.pods,
      events: SIZE.events,
      cacheTenants: SIZE.tenants,
      cachePolicies: SIZE.policies,
      // One `default` per scenario namespace, the test identity's own, and the control plane's.
      serviceAccounts: SIZE.namespaces + 2,
    };
    const perResource: Record<string, number> = {};
    for (const r of requests) perResource[`${r.verb} ${r.resource}`] = (perResource[`${r.verb} ${r.resource}`] ?? 0) + 1;
    const lists = listsOf(planRun({ configOnly: true }).reads);
    expect(lists).toEqual(
      expect.arrayContaining([
        'cacheBackends',
        'pods',
        'events',
        'cacheTenants',
        'cachePolicies',
        'nodes',
        'serviceAccounts',
        'namespaces',
      ]),
    );
    expect(perResource).toEqual(
      Object.fromEntries(lists.map((name) => [`list ${KINDS[name].access.resource}`, pages(objects[name] ?? 0)])),
    );
  });
});
