// The checks beyond upstream (NodeFit, ImagePullability, NetworkPolicyReachability) with the built
// bundle against the real test control plane: Nodes with allocatable and Ready written through the
// status subresource, pending pods the "scheduler" (this test, through pods/status) calls
// Unschedulable, pull secrets of every kind, NetworkPolicies, and a doctor "pod" without the
// controller labels facing a black-holed :8081. Plus what the new reads cost the API server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, type V1Container } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writesBy } from '../../dev/cluster/audit.ts';
import { closedPort } from '../../dev/process.ts';
import { requireBundle } from '../../dev/bundle.ts';
import {
  bindPod,
  createBackend,
  createNetworkPolicy,
  createNode,
  createPodWithSpec,
  createSecret,
  createServiceAccount,
  deleteNodes,
  uniqueName,
  writePodStatus,
} from '../../dev/cluster/objects.ts';
import { pairs, type JsonReport } from '../support/json-report.ts';
import { createNamespace, installCrds } from '../../dev/cluster/manifests.ts';
import { expectRoundTrip } from '../support/round-trip.ts';
import { doctorRuns } from '../support/doctor-runs.ts';
import { plannedCalls } from '../support/planned-calls.ts';
import type { Identity } from '../../dev/cluster/identity.ts';
import { expectEndedByBudget } from '../support/timing.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';

const INSTALL = { 'app.kubernetes.io/name': 'inference-cache' };
const SERVER = { ...INSTALL, 'app.kubernetes.io/component': 'server' };
const CONTROLLER = { ...INSTALL, 'app.kubernetes.io/component': 'controller' };
const CACHE = { ...INSTALL, 'app.kubernetes.io/component': 'cache' };
/** What a secret must never leak: a password inside the credentials, and the credentials themselves. */
const PASSWORD = 'hunter2-n0t-for-0utput';
const AUTH = Buffer.from(`robot:${PASSWORD}`).toString('base64');
const REGISTRY = 'private-registry.test:5000';
const DOCKERCONFIGJSON = JSON.stringify({ auths: { [REGISTRY]: { auth: AUTH, password: PASSWORD } } });
const DOCKERCFG = JSON.stringify({ [REGISTRY]: { auth: AUTH, email: 'robot@example.test' } });
const SECRET_BYTES = [
  PASSWORD,
  AUTH,
  REGISTRY,
  'robot',
  Buffer.from(DOCKERCONFIGJSON).toString('base64'),
  Buffer.from(DOCKERCFG).toString('base64'),
];

function container(name: string, requests: Record<string, string> = {}, extra: Partial<V1Container> = {}): V1Container {
  return { name, image: `registry.test/${name}:v1`, resources: { requests, limits: requests }, ...extra };
}

/** A TCP listener on `host`:8081 that accepts and never answers, like a port a NetworkPolicy drops. */
async function blackhole8081(): Promise<{ host: string; close: () => Promise<void> }> {
  for (let attempt = 0; ; attempt++) {
    const host = `127.0.${1 + Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
    const sockets = new Set<Socket>();
    const server: Server = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
      s.resume();
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(8081, host, () => resolve());
      });
      return {
        host,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      };
    } catch (err) {
      if (attempt >= 5 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}

describe.skipIf(kubeconfig === '')(`the checks beyond upstream against the test control plane${skipReason}`, () => {
  const kc = new KubeConfig();
  const nodes: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'icd-newchecks-'));
  const labelsFile = join(dir, 'labels');
  writeFileSync(labelsFile, 'app.kubernetes.io/component="doctor"\napp.kubernetes.io/name="inference-cache"\n');

  const runs = doctorRuns(kc);
  const { identity, auditOf, users: doctorUsers } = runs;
  const run = (id: Identity, args: string[], env: NodeJS.ProcessEnv = {}) => runs.run(id, args, env);
  const node = async (name: string, shape: Parameters<typeof createNode>[2]) => {
    nodes.push(name);
    await createNode(kc, name, shape);
  };

  beforeAll(async () => {
    requireBundle();
    kc.loadFromFile(kubeconfig);
    await installCrds(kc);
  });
  afterAll(async () => {
    await deleteNodes(kc, nodes);
  });

  describe('one install: nodes, pods, pull secrets, NetworkPolicies, a doctor pod without the controller labels', () => {
    const ns = uniqueName('newchk');
    /** Node names sort first, so messages that name a few nodes name these. */
    const tag = ns.slice(-6);
    const [cpuNode, gpuNode, sickNode, cordonedNode] = ['0a-cpu', '0b-gpu', '0c-sick', '0d-cordoned'].map((n) => `${n}-${tag}`) as [
      string,
      string,
      string,
      string,
    ];
    const res = (kind: string, name: string) => `${kind}/${ns}/${name}`;
    let doctor: Identity;
    let report: JsonReport;
    let elapsedMs = 0;

    beforeAll(async () => {
      await createNamespace(kc, ns, { team: 'dev' });
      doctor = await identity(ns, 'doctor');
      await node(cpuNode, { allocatable: { cpu: '8', memory: '32Gi' } });
      await node(gpuNode, { allocatable: { cpu: '2', memory: '16Gi', 'nvidia.com/gpu': '4' } });
      await node(sickNode, { allocatable: { cpu: '64', memory: '256Gi', 'nvidia.com/gpu': '8' }, ready: false });
      await node(cordonedNode, { allocatable: { cpu: '64', memory: '256Gi', 'nvidia.com/gpu': '8' }, unschedulable: true });

      await createSecret(kc, ns, 'valid-pull', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': DOCKERCONFIGJSON });
      await createSecret(kc, ns, 'legacy-pull', 'kubernetes.io/dockercfg', { '.dockercfg': DOCKERCFG });
      await createSecret(kc, ns, 'wrong-type', 'Opaque', { '.dockerconfigjson': DOCKERCONFIGJSON });
      await createSecret(kc, ns, 'no-auths', 'kubernetes.io/dockerconfigjson', {
        '.dockerconfigjson': JSON.stringify({ credsStore: PASSWORD }),
      });
      await createSecret(kc, ns, 'sa-pull', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': DOCKERCONFIGJSON });
      await createServiceAccount(kc, ns, 'puller', ['sa-pull', 'sa-missing']);

      await createBackend(kc, ns, 'chat', { engineSelector: { matchLabels: { app: 'chat-engine' } } });
      await createPodWithSpec(kc, ns, 'server-0', SERVER, {
        containers: [
          container(
            'server',
            { cpu: '100m', memory: '128Mi' },
            {
              ports: [
                { name: 'grpc', containerPort: 9090 },
                { name: 'snapshot', containerPort: 8081 },
              ],
            },
          ),
        ],
      });
      await createPodWithSpec(kc, ns, 'split-gpu', CACHE, { containers: [container('cache', { cpu: '6', 'nvidia.com/gpu': '1' })] });
      await createPodWithSpec(kc, ns, 'busy', CACHE, { containers: [container('cache', { cpu: '1', memory: '1Gi' })] });
      await writePodStatus(kc, ns, 'busy', {
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: '0/4 nodes are available: 2 Insufficient cpu, 2 node(s) were unschedulable.',
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      });
      await createPodWithSpec(kc, ns, 'init-heavy', CACHE, {
        initContainers: [container('warmup', { cpu: '48' })],
        containers: [container('cache', { cpu: '1' })],
      });
      await createPodWithSpec(
        kc,
        ns,
        'chat-engine-0',
        { app: 'chat-engine' },
        {
          containers: [container('engine')],
          imagePullSecrets: ['valid-pull', 'legacy-pull', 'wrong-type', 'no-auths', 'missing-pull'].map((name) => ({ name })),
        },
      );
      await writePodStatus(kc, ns, 'chat-engine-0', {
        containerStatuses: [
          {
            name: 'engine',
            image: 'registry.test/engine:v1',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "registry.test/engine:v1"' } },
          },
        ],
      });
      await createPodWithSpec(kc, ns, 'sa-user', CACHE, { serviceAccountName: 'puller', containers: [container('cache')] });
      await createPodWithSpec(kc, ns, 'bound-gpu', CACHE, { containers: [container('cache', { 'nvidia.com/gpu': '16' })] });
      await bindPod(kc, ns, 'bound-gpu', cpuNode);

      await createNetworkPolicy(kc, ns, 'inference-cache-server-snapshot', {
        podSelector: { matchLabels: SERVER },
        policyTypes: ['Ingress'],
        ingress: [
          {
            ports: [
              { protocol: 'TCP', port: 8080 },
              { protocol: 'TCP', port: 9090 },
            ],
          },
          { from: [{ podSelector: { matchLabels: CONTROLLER } }], ports: [{ protocol: 'TCP', port: 'snapshot' }] },
        ],
      });
      await createNetworkPolicy(kc, ns, 'ops-access', {
        podSelector: { matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: ['server'] }] },
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'ops' } } }], ports: [{ protocol: 'TCP', port: 8081 }] }],
      });

      const hole = await blackhole8081();
      try {
        const result = await run(
          doctor,
          ['-n', ns, '--server-endpoint', `${hole.host}:${await closedPort()}`, '--timeout', '8s', '--pod-labels-file', labelsFile],
          {
            POD_NAMESPACE: ns,
          },
        );
        report = result.report;
        elapsedMs = result.elapsedMs;
      } finally {
        await hole.close();
      }
    });

    it('NodeFit: one node must hold all of a pending pod; NotReady and cordoned nodes do not count; the scheduler is quoted; bound pods are not judged', () => {
      expect(pairs(report, (f) => f.check === 'NodeFit')).toEqual([
        ['NF002', res('pod', 'busy')],
        ['NF003', res('pod', 'chat-engine-0')],
        ['NF001', res('pod', 'init-heavy')],
        ['NF003', res('pod', 'sa-user')],
        ['NF003', res('pod', 'server-0')],
        ['NF001', res('pod', 'split-gpu')],
      ]);
      const msg = (name: string) => report.findings.find((f) => f.check === 'NodeFit' && f.resource === res('pod', name))?.message ?? '';
      expect(msg('split-gpu')).toContain('cpu 6, nvidia.com/gpu 1');
      expect(msg('split-gpu')).toContain(`${cpuNode} lacks nvidia.com/gpu (allocatable 0)`);
      expect(msg('split-gpu')).toContain(`${gpuNode} lacks cpu (allocatable 2)`);
      expect(msg('split-gpu')).toMatch(new RegExp(`${sickNode} NotReady, ${cordonedNode} cordoned`));
      expect(msg('init-heavy')).toContain('cpu 48');
      expect(msg('busy')).toContain('"0/4 nodes are available: 2 Insufficient cpu, 2 node(s) were unschedulable."');
      expect(msg('busy')).toContain(cpuNode);
    });

    it('ImagePullability: every kind of pull secret, the ServiceAccount-level ones, and ImagePullBackOff', () => {
      expect(pairs(report, (f) => f.check === 'ImagePullability')).toEqual([
        ['IP006', res('secret', 'valid-pull')],
        ['IP006', res('secret', 'legacy-pull')],
        ['IP002', res('secret', 'wrong-type')],
        ['IP003', res('secret', 'no-auths')],
        ['IP001', res('secret', 'missing-pull')],
        ['IP006', res('secret', 'sa-pull')],
        ['IP001', res('secret', 'sa-missing')],
        ['IP004', res('pod', 'chat-engine-0')],
      ]);
      const msg = (resource: string) =>
        report.findings.find((f) => f.check === 'ImagePullability' && f.resource === resource)?.message ?? '';
      expect(msg(res('secret', 'legacy-pull'))).toContain('legacy');
      expect(msg(res('secret', 'sa-pull'))).toContain(res('serviceaccount', 'puller'));
      expect(msg(res('pod', 'chat-engine-0'))).toMatch(/"engine".*ImagePullBackOff: "Back-off pulling image/);
    });

    it('NetworkPolicyReachability: names the policies, the missing label and the namespace label', () => {
      const np = report.findings.filter((f) => f.check === 'NetworkPolicyReachability');
      expect(np.map((f) => [f.code, f.resource])).toEqual([['NP001', res('pod', 'server-0')]]);
      const message = np[0]?.message ?? '';
      expect(message).toContain(`NetworkPolicy "${ns}/inference-cache-server-snapshot"`);
      expect(message).toContain('app.kubernetes.io/component=controller (is "doctor")');
      expect(message).toContain(`NetworkPolicy "${ns}/ops-access"`);
      expect(message).toContain(`namespace "${ns}" lacks team=ops (is "dev")`);
      expect(report.findings.filter((f) => /^(SN|PL|PB)/.test(f.code)).map((f) => f.code)).toEqual(['SN001', 'PL001', 'PB001']);
      expectEndedByBudget(elapsedMs, 8_000);
    });

    it('a doctor that may not get secrets says what it could not verify (INFO), never fails silently', async () => {
      const { report: denied } = await run(await identity(ns, 'no-secrets', ['secrets']), ['-n', ns, '--config-only']);
      const ip = denied.findings.filter((f) => f.check === 'ImagePullability' && f.resource?.startsWith(`secret/`));
      expect(ip.map((f) => f.code)).toEqual(Array(7).fill('IP005'));
      expect(ip[0]?.message).toMatch(/may not get it.*forbidden/);
    });

    it('offline: dump then doctor -f gives the live findings, as the doctor and as one that may not get secrets; no dump holds a credential', async () => {
      // A dump keeps each registry's host (what IP findings name), never a credential.
      const credentials = SECRET_BYTES.filter((text) => text !== REGISTRY);
      const report = await expectRoundTrip(doctor.kubeconfig, ['-n', ns], credentials);
      expect(report.findings.some((f) => f.check === 'ImagePullability' && f.code === 'IP006')).toBe(true);
      expect(report.findings.some((f) => f.check === 'NodeFit')).toBe(true);
      const denied = await expectRoundTrip((await identity(ns, 'no-secrets-offline', ['secrets'])).kubeconfig, ['-n', ns], credentials, {
        secretsDenied: true,
      });
      expect(denied.findings.filter((f) => f.code === 'IP005')).toHaveLength(7);
      await expectRoundTrip(kubeconfig, [], credentials);
    });

    it.each(['json', 'table', 'human'])('no byte of any secret appears in %s output', async (output) => {
      const { stdout, stderr } = await runs.raw(doctor, ['-n', ns, '--config-only'], {}, output);
      expect(stdout).toContain('IP006');
      for (const secret of SECRET_BYTES) {
        expect(stdout).not.toContain(secret);
        expect(stderr).not.toContain(secret);
      }
    });
  });

  describe("the doctor's own pod", () => {
    it('is never counted or judged: it wears the controller labels, but it is not part of the install', async () => {
      const ns = uniqueName('selfpod');
      await createNamespace(kc, ns);
      await createPodWithSpec(kc, ns, 'doctor-hook', CONTROLLER, {
        containers: [container('doctor', { cpu: '64', 'nvidia.com/gpu': '64' })],
        imagePullSecrets: [{ name: 'doctor-only-pull' }],
      });
      const id = await identity(ns, 'self');
      const hook = `pod/${ns}/doctor-hook`;
      const named = await run(id, ['-n', ns, '--config-only'], { POD_NAMESPACE: ns, POD_NAME: 'doctor-hook' });
      expect(named.report.findings.filter((f) => f.resource === hook || f.resource === `secret/${ns}/doctor-only-pull`)).toEqual([]);
      expect(auditOf(id.username).filter((c) => c.resource === 'secrets')).toEqual([]);
      const unnamed = await run(id, ['-n', ns, '--config-only'], { POD_NAMESPACE: ns });
      expect(pairs(unnamed.report, (f) => f.resource === hook || f.resource === `secret/${ns}/doctor-only-pull`)).toEqual([
        ['NF001', hook],
        ['IP001', `secret/${ns}/doctor-only-pull`],
      ]);
    });
  });

  describe('what the new reads cost: 200 pods and 20 nodes', () => {
    it('lists each collection once; the only reads of single objects are the named secrets, each once', async () => {
      const ns = uniqueName('newreads');
      const tag = ns.slice(-6);
      await createNamespace(kc, ns);
      await createSecret(kc, ns, 'pull-0', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': DOCKERCONFIGJSON });
      await createSecret(kc, ns, 'pull-1', 'kubernetes.io/dockercfg', { '.dockercfg': DOCKERCFG });
      for (let i = 0; i < 20; i += 5) {
        await Promise.all(
          Array.from({ length: 5 }, (_, j) =>
            node(`zz-${tag}-${String(i + j).padStart(2, '0')}`, { allocatable: { cpu: '1', memory: '1Gi' } }),
          ),
        );
      }
      for (let i = 0; i < 200; i += 20) {
        await Promise.all(
          Array.from({ length: 20 }, (_, j) =>
            createPodWithSpec(kc, ns, `cache-${String(i + j).padStart(3, '0')}`, CACHE, {
              containers: [container('cache', { cpu: '100m' })],
              imagePullSecrets: [{ name: `pull-${(i + j) % 3}` }],
            }),
          ),
        );
      }
      const id = await identity(ns, 'counted');
      const { report } = await run(
        id,
        ['-n', ns, '--server-endpoint', `127.0.0.1:${await closedPort()}`, '--pod-labels-file', labelsFile],
        { POD_NAMESPACE: ns },
      );
      expect(report.findings.filter((f) => f.check === 'NodeFit')).toHaveLength(200);
      expect(pairs(report, (f) => f.check === 'ImagePullability')).toEqual([
        ['IP006', `secret/${ns}/pull-0`],
        ['IP006', `secret/${ns}/pull-1`],
        ['IP001', `secret/${ns}/pull-2`],
      ]);

      const calls = auditOf(id.username);
      const perResource = new Map<string, number>();
      for (const c of calls) {
        const key = `${c.verb} ${c.resource}`;
        perResource.set(key, (perResource.get(key) ?? 0) + 1);
      }
      expect(Object.fromEntries(perResource)).toEqual({ ...plannedCalls({ configOnly: false, namespaced: true }), 'get secrets': 3 });
      expect(perResource.get('list nodes')).toBe(1);
      const secretGets = calls
        .filter((c) => c.resource === 'secrets')
        .map((c) => c.uri)
        .sort();
      expect(secretGets).toEqual([0, 1, 2].map((i) => `/api/v1/namespaces/${ns}/secrets/pull-${i}`));
    });
  });

  it('sends no create, update, patch or delete in any run of this suite', () => {
    expect(doctorUsers.size).toBeGreaterThanOrEqual(3);
    expect(writesBy(inject('auditLogPath'), doctorUsers)).toEqual([]);
  });
});
