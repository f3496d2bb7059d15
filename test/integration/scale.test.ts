// A tenth of the scale scenario (DESIGN §8) in a control plane of its own: the report holds exactly
// the findings the scenario implies, code by code, and the doctor asks the API server for each page of
// each collection once. (Time and memory are the benchmark's business: `npm run bench:scale`.)
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PAGE_SIZE } from '../../src/cluster/api.ts';
import { completedRequestsBy } from '../support/audit.ts';
import { requireBundle, runBundle } from '../support/bundle.ts';
import { startControlPlane, type ControlPlane } from '../support/controlplane/controlplane.ts';
import { installCrds } from '../support/fixtures.ts';
import { doctorIdentity, type Identity } from '../support/identity.ts';
import { buildScenario, expectedCounts, scaled } from '../support/scale-scenario.ts';

const available = inject('kubeconfig') !== '';
const skipReason = available ? '' : ` (skipped: ${inject('controlPlaneSkipReason')})`;
const SIZE = scaled(0.1);

describe.skipIf(!available)(`a tenth of the scale scenario${skipReason}`, () => {
  let cp: ControlPlane;
  let id: Identity;
  const counts: Record<string, number> = {};
  let requests: { verb: string; resource: string }[] = [];

  beforeAll(async () => {
    requireBundle();
    cp = await startControlPlane();
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    await installCrds(kc);
    await buildScenario({ server: cp.server, caFile: cp.caFile, token: cp.adminToken }, SIZE);
    id = await doctorIdentity(kc, { namespace: 'default', name: 'scale', server: cp.server, caFile: cp.caFile });
    const run = await runBundle(['doctor', '--kubeconfig', id.kubeconfig, '--config-only', '-o', 'json'], { timeoutMs: 120_000 });
    expect(run.code).toBe(1);
    for (const f of (JSON.parse(run.stdout) as { findings: { code: string }[] }).findings) counts[f.code] = (counts[f.code] ?? 0) + 1;
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

  it('lists each collection once, page by page, and reads nothing else', () => {
    const pages = (objects: number) => Math.max(1, Math.ceil(objects / PAGE_SIZE));
    const perResource: Record<string, number> = {};
    for (const r of requests) perResource[`${r.verb} ${r.resource}`] = (perResource[`${r.verb} ${r.resource}`] ?? 0) + 1;
    expect(perResource).toEqual({
      'list cachebackends': pages(SIZE.backends),
      'list pods': pages(SIZE.pods),
      'list events': pages(SIZE.events),
      'list cachetenants': pages(SIZE.tenants),
      'list cachepolicies': pages(SIZE.policies),
      'list nodes': 1,
      // One `default` per scenario namespace, the test identity's own, and the control plane's.
      'list serviceaccounts': pages(SIZE.namespaces + 2),
    });
  });
});
