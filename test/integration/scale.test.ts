// A tenth of the scale scenario (docs/architecture.md#bars) in a control plane of its own: the report holds exactly
// the findings the scenario implies, code by code, and the doctor asks the API server for each page of
// each collection once, and the run, as the image runs it, stays under a memory bound with room to
// spare; the bench's two floors count the same objects. A fiftieth of the Kubernetes envelope, in the
// inference shape with more engine pods, is judged as its shape implies too. (Time, and memory at full
// size, are the benchmark's business: `npm run bench:scale`.)
import { readFileSync, writeFileSync } from 'node:fs';
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
import {
  BENCH_SHAPE,
  ENVELOPE,
  INFERENCE_SHAPE,
  buildScenario,
  expectedCounts,
  scaled,
  type ScaleShape,
  type ScaleSize,
} from '../../dev/cluster/scale-scenario.ts';
import { collectProcess } from '../../dev/process.ts';
import { collectionPath } from '../../src/cluster/kinds/access.ts';
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
const FLOOR = resolve(import.meta.dirname, '../../scripts/bench/floor.mjs');

/** A control plane of its own holding the scenario of `size` in `shape`, and an identity of the doctor's named `name`. */
async function scenarioControlPlane(size: ScaleSize, shape: ScaleShape, name: string): Promise<{ cp: ControlPlane; id: Identity }> {
  requireBundle();
  const cp = await startControlPlane();
  const kc = new KubeConfig();
  kc.loadFromFile(cp.kubeconfigPath);
  await installCrds(kc);
  await buildScenario({ server: cp.server, caFile: cp.caFile, token: cp.adminToken }, size, undefined, 32, shape);
  return { cp, id: await doctorIdentity(kc, { namespace: 'default', name, server: cp.server, caFile: cp.caFile }) };
}

/** What a floor of the bench prints: the objects it read, listing the doctor's collections as `id`, in `mode`. */
async function floorCount(mode: 'json' | 'protobuf', cp: ControlPlane, id: Identity): Promise<string> {
  const tokenFile = join(cp.dir, `floor-${mode}-token`);
  writeFileSync(tokenFile, id.token);
  const paths = listsOf(planRun({ configOnly: true }).reads).map((name) => collectionPath(KINDS[name].access, ''));
  const run = await collectProcess(process.execPath, [FLOOR, mode, cp.server, cp.caFile, tokenFile, ...paths], {
    env: { PATH: process.env['PATH'] ?? '' },
    timeoutMs: 120_000,
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return run.stdout;
}

describe.skipIf(!available)(`a tenth of the scale scenario${skipReason}`, () => {
  let cp: ControlPlane;
  let id: Identity;
  const counts: Record<string, number> = {};
  let requests: { verb: string; resource: string }[] = [];
  let peakRssMiB = 0;

  beforeAll(async () => {
    ({ cp, id } = await scenarioControlPlane(SIZE, BENCH_SHAPE, 'scale'));
    const usageFile = join(cp.dir, 'doctor-usage.json');
    const run = await runBundle(['doctor', '--kubeconfig', id.kubeconfig, '--config-only', '-o', 'json'], {
      command: [process.execPath, ...IMAGE_NODE_FLAGS, '--import', USAGE_PRELOAD, requireBundle()],
      env: { ...IMAGE_ENV, PATH: process.env['PATH'] ?? '', BENCH_USAGE_FILE: usageFile },
      timeoutMs: 120_000,
    });
    expect(run.code).toBe(1);
    peakRssMiB = (JSON.parse(readFileSync(usageFile, 'utf8')) as { peakRssKiB: number }).peakRssKiB / 1024;
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

  it("the bench's floors, one reading JSON and one protobuf, count the same objects, every pod and Event among them", async () => {
    const json = await floorCount('json', cp, id);
    expect(await floorCount('protobuf', cp, id)).toBe(json);
    expect(Number(/^(\d+) objects\n$/.exec(json)?.[1])).toBeGreaterThan(SIZE.pods + SIZE.events + SIZE.backends + SIZE.tenants);
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

/** A fiftieth of the envelope: 3,000 pods over 100 Nodes, 150 CacheBackends in 10 namespaces. */
const ENVELOPE_PART = scaled(0.02, ENVELOPE);
/** Four in five pods engine pods, marked as the inference shape marks them (an Event for one in five). */
const ENGINE_HEAVY: ScaleShape = { ...INFERENCE_SHAPE, enginePercent: 80 };

describe.skipIf(!available)(`a fiftieth of the envelope, 80% engine pods${skipReason}`, () => {
  let cp: ControlPlane;
  let id: Identity;

  beforeAll(async () => {
    ({ cp, id } = await scenarioControlPlane(ENVELOPE_PART, ENGINE_HEAVY, 'scale-envelope'));
  }, 180_000);

  afterAll(async () => {
    await cp.stop();
  });

  it('finds what the shape implies, code by code: the engine pods known injected only by their Events among EP002', async () => {
    const run = await runBundle(['doctor', '--kubeconfig', id.kubeconfig, '--config-only', '-o', 'json'], { timeoutMs: 120_000 });
    expect(run.code).toBe(1);
    const counts: Record<string, number> = {};
    for (const f of (parseReport(run.stdout) as { findings: { code: string }[] }).findings) counts[f.code] = (counts[f.code] ?? 0) + 1;
    expect(counts).toEqual(Object.fromEntries(Object.entries(expectedCounts(ENVELOPE_PART, ENGINE_HEAVY)).filter(([, n]) => n > 0)));
    expect(counts['EP002']).toBeGreaterThan(0);
  }, 120_000);

  it("the bench's floors count the same objects, the Nodes among them", async () => {
    const json = await floorCount('json', cp, id);
    expect(await floorCount('protobuf', cp, id)).toBe(json);
    expect(Number(/^(\d+) objects\n$/.exec(json)?.[1])).toBeGreaterThan(ENVELOPE_PART.pods + ENVELOPE_PART.events + ENVELOPE_PART.nodes);
  }, 120_000);
});
