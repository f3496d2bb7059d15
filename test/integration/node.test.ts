// The product's central claim on a real dataplane: a kubelet on containerd and runc runs the chart's hook
// pod from the image `npm run image` builds; the pod reaches the server through the CNI bridge, the
// Service ClusterIP kube-proxy programs and the name CoreDNS answers, and kube-router enforces the
// server's NetworkPolicy on :8081. Then the proofs that only a dataplane that drops packets can give,
// and a teardown that leaves nothing in the machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api, NetworkingV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { ago, condition, createBackend, reconciledBackendStatus } from '../../dev/cluster/objects.ts';
import type { JsonReport } from '../support/json-report.ts';
import { CACHE_BACKENDS, INSTALL_NAMESPACE, applyObjects, createNamespace, writeStatus } from '../../dev/cluster/manifests.ts';
import { HELM_MUST_RUN, helmBinaries, reportIn, runHelmAsync, type HelmBinary } from '../support/helm.ts';
import { ensureImage } from '../support/image/build.ts';
import { BRIDGE, DNS_SERVICE_IP, GUARD_CHAIN, NODE_NAME, POD_CIDR, SERVICE_CIDR } from '../../dev/cluster/node/addresses.ts';
import { missingForNode, type NodeCluster } from '../../dev/cluster/node/node.ts';
import { acquireNode, releaseNode } from '../support/shared-node.ts';
import { IMAGES } from '../../dev/cluster/images.ts';
import {
  PULL_SECRET_NAME,
  doctorChartArgs,
  doctorImageValues,
  doctorRepository,
  pullSecret,
  registryLoginArgs,
} from '../../dev/cluster/node/registry.ts';
import { PACKAGE } from '../../dev/package.ts';
import { pollUntil } from '../../dev/poll.ts';
import { PROBE_BUDGET_MS } from '../../src/doctor/probe-plan.ts';
import { SETTLE_WINDOW_MS } from '../../src/probes/settle.ts';
import {
  REMOTE_ENDPOINT,
  WORKLOAD_NAMESPACE,
  deleteServerTlsSecret,
  deploySampleInstall,
  rollServer,
  setServerHealth,
  writeServerTlsSecret,
} from '../../dev/cluster/node/sample-install-pods.ts';
import { caChain, selfSignedServingCert } from '../support/tls-pki.ts';
import { healthyBackendStatus } from '../../dev/cluster/sample-install-local.ts';

const HELMS = helmBinaries().map((helm) => ({ helm, label: helm.name, short: helm.name === 'Helm 3' ? 'h3' : 'h4' }));
const missing = [...missingForNode(), ...HELMS.filter(({ helm }) => helm.missing !== '').map(({ helm }) => helm.missing)];
if (missing.length > 0 && HELM_MUST_RUN)
  throw new Error(`the real node must run under CI: missing ${missing.join(', ')} (.ci/run installs them)`);
const skip = missing.length > 0;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; see docs/real-node.md)` : '';

const CONTROLLER_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'controller' };
const POLICY = 'inference-cache-server-snapshot';
/** How many fresh pods the first-attempt and wrong-labels proofs run (issue: ten of each). */
const RUNS = 10;
const codes = (report: JsonReport) => report.findings.map((f) => f.code);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/**
 * How long each server port refused the fresh pod before kube-router admitted it, as the findings say
 * (the settle window, docs/real-node.md), for the log of a run: `:9090 refused 1.2s, :8081 refused 1.3s`, or `admitted at once`.
 */
const settledOf = (report: JsonReport): string => {
  const ports = { SV: ':9090', SN: ':8081' } as const;
  const waited = Object.entries(ports).flatMap(([prefix, port]) => {
    const found = report.findings.find((f) => f.code.startsWith(prefix))?.message ?? '';
    const [, how = '', seconds = ''] = /(refused|unreachable|unanswered) for (\d+\.\d)s after the doctor's pod started/.exec(found) ?? [];
    return how === '' ? [] : [`${port} ${how} ${seconds}s`];
  });
  return waited.length === 0 ? 'admitted at once' : waited.join(', ');
};
const inCidr = (ip: string, cidr: string): boolean => {
  const [base = '', bits = '32'] = cidr.split('/');
  const n = (a: string) => a.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n(ip) / size) === Math.floor(n(base) / size);
};

describe.skipIf(skip)(`a real node: kubelet, containerd, CNI bridge, kube-proxy, CoreDNS, kube-router${skipReason}`, () => {
  let cluster: NodeCluster;
  let released = false;
  const core = () => cluster.kc.makeApiClient(CoreV1Api);
  const pod = (name: string): Promise<V1Pod> => core().readNamespacedPod({ namespace: INSTALL_NAMESPACE, name });
  /** The healthy backend's last KV event, 5 s ago again: the suite runs for longer than its freshness window. */
  const refreshBackend = () =>
    writeStatus(cluster.kc, { ...CACHE_BACKENDS, namespace: WORKLOAD_NAMESPACE, name: 'chat' }, healthyBackendStatus(REMOTE_ENDPOINT));

  beforeAll(async () => {
    requireBundle();
    ensureImage();
    cluster = await acquireNode({ log: (l) => console.info(`[node] ${l}`) });
    await deploySampleInstall(cluster.kc);
    // The chart comes from the registry (oci://) and its pods pull the doctor image from there with a pull secret.
    await applyObjects(cluster.kc, [pullSecret(cluster.registry, INSTALL_NAMESPACE)]);
    for (const { helm } of HELMS) {
      const login = await runHelmAsync(helm, registryLoginArgs(cluster.registry));
      expect(login.code, login.stderr).toBe(0);
    }
    // A Service selecting the controller's labels: the doctor pod carries them, so the EndpointSlice
    // controller lists it, and must list it not ready.
    await applyObjects(cluster.kc, [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'inference-cache-webhook', namespace: INSTALL_NAMESPACE },
        spec: { selector: CONTROLLER_LABELS, ports: [{ name: 'https', port: 443, targetPort: 9443 }] },
      },
    ]);
  }, 900_000);
  afterAll(async () => {
    if (cluster !== undefined && !released) await releaseNode();
  }, 300_000);

  it('the node is Ready on containerd with the kubelet 1.35, and every address is inside the machine', async () => {
    const node = await core().readNode({ name: NODE_NAME });
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^containerd:\/\/1\.6\./);
    expect(node.status?.nodeInfo?.kubeletVersion).toBe('v1.35.4');
    const pods = await core().listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${NODE_NAME}` });
    expect(pods.items.length).toBeGreaterThanOrEqual(4);
    for (const p of pods.items) expect(inCidr(p.status?.podIP ?? '', POD_CIDR), p.metadata?.name).toBe(true);
    const services = await core().listServiceForAllNamespaces();
    for (const s of services.items) expect(inCidr(s.spec?.clusterIP ?? '', SERVICE_CIDR), s.metadata?.name).toBe(true);
    // The pod range is routed to the bridge only, nothing masquerades it, and the guard drops the rest.
    expect(execFileSync('ip', ['route', 'show', POD_CIDR], { encoding: 'utf8' })).toContain(`dev ${BRIDGE}`);
    expect(execFileSync('iptables-save', ['-t', 'nat'], { encoding: 'utf8' })).not.toMatch(
      new RegExp(`-s ${POD_CIDR.replace('.', '\\.')}.*MASQUERADE`),
    );
    expect(execFileSync('iptables-save', ['-t', 'mangle'], { encoding: 'utf8' })).toContain(`-A FORWARD -j ${GUARD_CHAIN}`);
    const dns = await core().readNamespacedService({ namespace: 'kube-system', name: 'kube-dns' });
    expect(dns.spec?.clusterIP).toBe(DNS_SERVICE_IP);
  });

  it('a pod cannot reach beyond the machine: the guard drops its packets to the host network', async () => {
    const gateway = /default via (\S+)/.exec(execFileSync('ip', ['route', 'show', 'default'], { encoding: 'utf8' }))?.[1] ?? '192.0.2.1';
    const drops = () => {
      const listed = execFileSync('iptables', ['-t', 'mangle', '-L', GUARD_CHAIN, '-n', '-v', '-x'], { encoding: 'utf8' });
      const line = listed.split('\n').find((l) => l.includes('DROP') && l.includes('pods reach only pods'));
      return Number(line?.trim().split(/\s+/)[0] ?? NaN);
    };
    const before = drops();
    const name = 'egress-probe';
    const connect = [
      "const s = require('net').connect({ host: process.argv[1], port: 80 });",
      "s.setTimeout(3000, () => { console.log('timeout'); process.exit(0); });",
      "s.on('connect', () => { console.log('connected'); process.exit(1); });",
      "s.on('error', (e) => { console.log('error ' + e.code); process.exit(0); });",
    ].join(' ');
    await core().createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          containers: [
            {
              name: 'probe',
              image: IMAGES.referenceServer,
              imagePullPolicy: 'Never',
              command: ['/nodejs/bin/node', '-e', connect, gateway],
              securityContext: { runAsNonRoot: true, runAsUser: 65532, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
            },
          ],
        },
      },
    });
    try {
      await pollUntil(`pod ${name} finished`, { timeoutMs: 60_000, intervalMs: 500 }, async () => {
        const phase = (await core().readNamespacedPod({ namespace: 'default', name })).status?.phase ?? '';
        return phase === 'Succeeded' || phase === 'Failed' || `phase ${phase}`;
      });
      const log = await core().readNamespacedPodLog({ namespace: 'default', name });
      expect(log.trim()).toBe('timeout');
      expect(drops()).toBeGreaterThan(before);
    } finally {
      await core().deleteNamespacedPod({ namespace: 'default', name });
    }
  }, 120_000);

  /** Helm against the cluster, for one release, with the doctor image built here. */
  const helmOn = (binary: HelmBinary | undefined, release: string) => {
    const helm = async (args: string[]) => {
      if (binary === undefined) throw new Error('no Helm binary');
      const run = await runHelmAsync(
        binary,
        [...args, '--kubeconfig', cluster.state.controlPlane.kubeconfigPath, '--namespace', INSTALL_NAMESPACE],
        600_000,
      );
      return { code: run.code, output: `${run.stdout}${run.stderr}`, ms: run.elapsedMs };
    };
    const upgrade = (values: string[] = []) =>
      helm([
        'upgrade',
        '--install',
        release,
        ...doctorChartArgs(cluster.registry),
        '--reset-values',
        ...[...doctorImageValues(cluster.registry), ...values].flatMap((v) => ['--set', v]),
      ]);
    const helmTest = async () => {
      await refreshBackend();
      return helm(['test', release, '--logs', '--timeout', '5m']);
    };
    return { helm, upgrade, helmTest };
  };

  describe.each(HELMS)('$label', ({ helm: binary, label, short }) => {
    const release = `doctor-${short}`;
    const podName = `${release}-inferencecache-doctor`;
    /** The pod of the post-install/upgrade and PostSync hooks. */
    const deployPod = `${podName}-deploy`;
    const { helm, upgrade, helmTest } = helmOn(binary, release);

    afterAll(async () => {
      await helm(['uninstall', release]);
    });

    it('helm install + helm test --logs: SV003, SN004, PL002, PB002 through the Service IP, the DNS name and the policy', async () => {
      const installed = await upgrade();
      expect(installed.code, installed.output).toBe(0);
      const discovery = cluster.kc.makeApiClient(DiscoveryV1Api);
      const seen: (boolean | undefined)[] = [];
      const testing = helmTest();
      for (let done = false; !done; await sleep(250)) {
        const current = await pod(podName).catch(() => undefined);
        if (current?.status?.phase === 'Running') {
          const slices = await discovery.listNamespacedEndpointSlice({
            namespace: INSTALL_NAMESPACE,
            labelSelector: 'kubernetes.io/service-name=inference-cache-webhook',
          });
          seen.push(
            ...slices.items
              .flatMap((s) => s.endpoints)
              .filter((e) => e?.targetRef?.name === podName)
              .map((e) => e?.conditions?.ready),
          );
        }
        done = current?.status?.phase === 'Succeeded' || current?.status?.phase === 'Failed';
      }
      const tested = await testing;
      expect(tested.code, tested.output).toBe(0);
      expect(tested.output).toMatch(/Phase:\s+Succeeded/);
      const report = reportIn(tested.output);
      console.info(`[${label}] ${settledOf(report)}`);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
      expect(report.findings.filter((f) => f.status !== 'OK')).toEqual([]);
      const sv003 = report.findings.find((f) => f.code === 'SV003');
      expect(sv003?.resource).toBe('inference-cache-server.inference-cache-system.svc:9090');
      const done = await pod(podName);
      expect(done.spec?.nodeName).toBe(NODE_NAME);
      expect(done.spec?.containers[0]?.image).toBe(`${doctorRepository(cluster.registry)}:${PACKAGE.version}`);
      expect(done.spec?.imagePullSecrets).toEqual([{ name: PULL_SECRET_NAME }]);
      expect(done.status?.containerStatuses?.[0]?.imageID).toMatch(/sha256:/);
      expect(inCidr(done.status?.podIP ?? '', POD_CIDR)).toBe(true);
      // The kubelet wrote the termination message from the file the doctor wrote.
      expect(done.status?.containerStatuses?.[0]?.state?.terminated?.message).toMatch(/^inferencecache doctor: exit 0/);
      expect(done.status?.conditions?.find((c) => c.type === 'Ready')?.status).not.toBe('True');
      expect(seen.length, 'the EndpointSlice controller listed the running pod').toBeGreaterThan(0);
      expect(seen.every((r) => r === false)).toBe(true);
      console.info(`[${label}] helm install ${installed.ms} ms + helm test ${tested.ms} ms on the real node`);
    }, 600_000);

    it('a rerun of helm test replaces the pod (before-hook-creation) and passes again', async () => {
      const first = (await pod(podName)).metadata?.uid;
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      expect(codes(reportIn(tested.output)).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
      expect((await pod(podName)).metadata?.uid).not.toBe(first);
    }, 600_000);

    it('a broken install (NOT_SERVING, a stale backend): helm test fails, the logs and the termination message carry the codes', async () => {
      const ns = `broken-${short}`;
      await createNamespace(cluster.kc, ns);
      await createBackend(
        cluster.kc,
        ns,
        'stale',
        {},
        {
          conditions: [condition('Ready', 'True')],
          matchedEnginePods: 1,
          firstKVEventObservedAt: ago(3_600_000),
          indexParticipation: { prefixCount: 4, lastEventAt: ago(15 * 60_000) },
        },
      );
      await setServerHealth(cluster.kc, 'NOT_SERVING');
      try {
        expect((await upgrade()).code).toBe(0);
        const tested = await helmTest();
        expect(tested.code).not.toBe(0);
        expect(tested.output).toMatch(/Phase:\s+Failed/);
        const report = reportIn(tested.output);
        expect(codes(report)).toEqual(expect.arrayContaining(['SV002', 'CB004']));
        expect(report.summary.exitCode).toBe(2);
        const terminated = (await pod(podName)).status?.containerStatuses?.[0]?.state?.terminated;
        expect(terminated?.exitCode).toBe(2);
        expect(terminated?.message).toContain('SV002');
        expect(terminated?.message).toContain('CB004');
        expect(Buffer.byteLength(terminated?.message ?? '')).toBeLessThanOrEqual(4096);
      } finally {
        await setServerHealth(cluster.kc, 'SERVING');
        await cluster.kc.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({ ...CACHE_BACKENDS, namespace: ns, name: 'stale' });
      }
    }, 600_000);

    it('a token of the wrong audience: SN005 (401) through the real path, a WARN that fails only with failOn=warn', async () => {
      expect((await upgrade(['token.audience=https://kubernetes.default.svc', 'failOn=warn'])).code).toBe(0);
      const tested = await helmTest();
      const report = reportIn(tested.output);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN005', 'PL002', 'PB002']);
      expect(report.findings.find((f) => f.code === 'SN005')?.message).toContain('401');
      expect(report.summary).toMatchObject({ exitCode: 1 });
      expect(tested.code).not.toBe(0);
      expect((await upgrade(['token.audience=https://kubernetes.default.svc'])).code).toBe(0);
      const passed = await helmTest();
      expect(passed.code, passed.output).toBe(0);
      expect(reportIn(passed.output).summary).toMatchObject({ exitCode: 0, failOn: 'FAIL' });
    }, 600_000);

    it('the dedicated identity: SN005 (403: /snapshot admits only the controller), as documented, and helm test passes', async () => {
      expect((await upgrade(['identity=dedicated'])).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      const report = reportIn(tested.output);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN005', 'PL002', 'PB002']);
      expect(report.findings.find((f) => f.code === 'SN005')?.message).toContain('403');
      expect((await pod(podName)).spec?.serviceAccountName).not.toBe('inference-cache-controller-manager');
    }, 600_000);

    it('post-install: helm install fails when the doctor exits 2, and succeeds on a healthy install', async () => {
      await helm(['uninstall', release]);
      const values = ['hooks.postInstallUpgrade=true', 'hooks.helmTest=false', 'wait.afterDeploySeconds=0'];
      await setServerHealth(cluster.kc, 'NOT_SERVING');
      try {
        const failed = await upgrade(values);
        expect(failed.code, failed.output).not.toBe(0);
        expect(failed.output).toMatch(/post-install|failed/i);
        expect((await pod(deployPod)).status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(2);
      } finally {
        await setServerHealth(cluster.kc, 'SERVING');
      }
      await helm(['uninstall', release]);
      await refreshBackend();
      const healthy = await upgrade(['hooks.postInstallUpgrade=true', 'hooks.helmTest=false', 'wait.afterDeploySeconds=60']);
      expect(healthy.code, healthy.output).toBe(0);
      const hook = await pod(deployPod);
      expect(hook.status?.phase).toBe('Succeeded');
      expect(hook.spec?.nodeName).toBe(NODE_NAME);
      const log = await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: deployPod });
      expect(codes(reportIn(log)).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
    }, 600_000);

    it('post-install with a wait: helm install succeeds once the controller marks a backend Ready 8-10 s into the hook', async () => {
      await helm(['uninstall', release]);
      const ns = `late-${short}`;
      await createNamespace(cluster.kc, ns);
      await createBackend(cluster.kc, ns, 'late', {});
      try {
        await refreshBackend();
        const installing = upgrade(['hooks.postInstallUpgrade=true', 'hooks.helmTest=false', 'failOn=warn', 'wait.afterDeploySeconds=90']);
        for (;;) {
          const hook = await pod(deployPod).catch(() => undefined);
          if (hook?.status?.phase === 'Running') break;
          await sleep(250);
        }
        await sleep(8_000 + Math.random() * 2_000);
        await writeStatus(cluster.kc, { ...CACHE_BACKENDS, namespace: ns, name: 'late' }, reconciledBackendStatus());
        const installed = await installing;
        expect(installed.code, installed.output).toBe(0);
        const log = await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: deployPod });
        const report = reportIn(log);
        expect(report.summary).toMatchObject({ exitCode: 0 });
        const attempts = report.attempts ?? [];
        expect(attempts.length).toBeGreaterThanOrEqual(2);
        expect(attempts[0]?.counted).toContain('CB001');
        expect((await pod(deployPod)).spec?.activeDeadlineSeconds).toBe(90 + 30 + 30);
      } finally {
        await cluster.kc.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({ ...CACHE_BACKENDS, namespace: ns, name: 'late' });
      }
    }, 600_000);
  });

  describe("TLS on the server's gRPC port: upstream's overlay, cert-manager's Secret, serverTLS.enabled", () => {
    const release = 'doctor-tls';
    const podName = `${release}-inferencecache-doctor`;
    const { helm, upgrade, helmTest } = helmOn(HELMS[0]?.helm, release);
    const dir = mkdtempSync(join(tmpdir(), 'icd-node-tls-'));
    const target = 'inference-cache-server.inference-cache-system.svc:9090';
    const finding = (report: JsonReport, code: string) => report.findings.find((f) => f.code === code);

    beforeAll(async () => {
      // As cert-manager's self-signed Issuer makes it: ca.crt is the leaf itself.
      await writeServerTlsSecret(cluster.kc, selfSignedServingCert(join(dir, 'self-signed')));
      await rollServer(cluster.kc, { tls: true });
    }, 300_000);
    afterAll(async () => {
      await helm(['uninstall', release]);
      await rollServer(cluster.kc);
      await deleteServerTlsSecret(cluster.kc);
      rmSync(dir, { recursive: true, force: true });
    }, 300_000);

    it('enabled: the pod mounts ca.crt from the Secret and verifies the Service name, SV003 and TL011, helm test passes', async () => {
      expect((await upgrade(['serverTLS.enabled=true'])).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      const report = reportIn(tested.output);
      console.info(`[tls] ${settledOf(report)}`);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
      expect(report.findings.filter((f) => f.status !== 'OK')).toEqual([]);
      expect(finding(report, 'SV003')?.message).toContain('through TLS');
      const tl011 = finding(report, 'TL011');
      expect(tl011?.resource).toBe(target);
      expect(tl011?.message).toContain('/var/run/secrets/inferencecache.io/server-tls/ca.crt');
      expect(tl011?.message).toContain('for the name inference-cache-server.inference-cache-system.svc');
    }, 600_000);

    it('not enabled: TL001 says the port speaks TLS and what to set, instead of a protocol error; helm test fails', async () => {
      expect((await upgrade()).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code).not.toBe(0);
      const report = reportIn(tested.output);
      expect(codes(report)).toEqual(expect.arrayContaining(['SV001', 'TL001']));
      expect(finding(report, 'TL001')?.message).toContain('speaks TLS');
      expect(finding(report, 'TL001')?.hint).toContain('serverTLS.enabled');
      expect((await pod(podName)).status?.containerStatuses?.[0]?.state?.terminated?.message).toContain('TL001');
    }, 600_000);

    it('a renewal that put in a CA chain whose leaf expires in 5 days: TL006 (WARN), helm test passes under failOn=fail', async () => {
      const chain = caChain(join(dir, 'chain'), { intermediate: true, notAfter: new Date(Date.now() + 5 * 86_400_000 + 3_600_000) });
      await writeServerTlsSecret(cluster.kc, chain);
      await rollServer(cluster.kc, { tls: true });
      expect((await upgrade(['serverTLS.enabled=true'])).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      const report = reportIn(tested.output);
      expect(codes(report)).toEqual(expect.arrayContaining(['SV003', 'TL011', 'TL006']));
      expect(finding(report, 'TL006')?.message).toContain('expires in 5 days');
      expect(report.summary).toMatchObject({ warn: 1, exitCode: 0, failOn: 'FAIL' });
    }, 600_000);

    it('the Secret gone: the pod does not hang on the optional volume, TL001 names the missing CA file', async () => {
      await deleteServerTlsSecret(cluster.kc);
      expect((await upgrade(['serverTLS.enabled=true'])).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code).not.toBe(0);
      expect(tested.output).toMatch(/Phase:\s+Failed/);
      const report = reportIn(tested.output);
      expect(finding(report, 'TL001')?.message).toMatch(/server-tls\/ca\.crt cannot be used: ENOENT/);
    }, 600_000);
  });

  /** The doctor's own run time in a pod, from the kubelet's record (whole seconds). */
  const runSeconds = async (name: string): Promise<number> => {
    const terminated = (await pod(name)).status?.containerStatuses?.[0]?.state?.terminated;
    return ((terminated?.finishedAt?.getTime() ?? NaN) - (terminated?.startedAt?.getTime() ?? NaN)) / 1000;
  };

  describe('the first attempt, with the chart as it ships (wait.helmTestSeconds: 0)', () => {
    // A fresh release each time: the first test pod after an install is the one that meets kube-router
    // before it has admitted the pod (measured: docs/real-node.md#settle-window).
    it(`${RUNS} releases installed and tested, each a fresh pod: every one passes on its first and only attempt`, async () => {
      const log: string[] = [];
      for (let run = 1; run <= RUNS; run++) {
        const release = `doctor-first-${run}`;
        const { helm, upgrade, helmTest } = helmOn(HELMS[0]?.helm, release);
        try {
          expect((await upgrade()).code).toBe(0);
          const tested = await helmTest();
          const report = reportIn(tested.output);
          log.push(`#${run} ${settledOf(report)} (${await runSeconds(`${release}-inferencecache-doctor`)}s)`);
          expect(tested.code, `run ${run}: ${tested.output}`).toBe(0);
          expect(report.attempts).toBeUndefined();
          expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
        } finally {
          await helm(['uninstall', release]);
        }
      }
      console.info(`[first attempt] ${log.join('; ')}`);
    }, 1_800_000);
  });

  describe('the enforced NetworkPolicy', () => {
    const release = 'doctor-np';
    const podName = `${release}-inferencecache-doctor`;
    const { helm, upgrade, helmTest } = helmOn(HELMS[0]?.helm, release);
    const install = () => upgrade(['controller.labels.app\\.kubernetes\\.io/component=null']);

    afterAll(async () => {
      await helm(['uninstall', release]);
    });

    it(`a pod without the controller labels, ${RUNS} times: refused on :8081 through the settle window, NP001 names the policy and the label`, async () => {
      const installed = await install();
      expect(installed.code, installed.output).toBe(0);
      const log: string[] = [];
      for (let run = 1; run <= RUNS; run++) {
        const tested = await helmTest();
        const report = reportIn(tested.output);
        const seconds = await runSeconds(podName);
        log.push(`#${run} ${settledOf(report)} (${seconds}s)`);
        expect(tested.code, tested.output).not.toBe(0);
        expect((await pod(podName)).metadata?.labels?.['app.kubernetes.io/component']).toBeUndefined();
        expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN001', 'PL001', 'PB001']);
        // kube-router rejects (ICMP port unreachable) rather than drops: refused, not a timeout.
        expect(report.findings.find((f) => f.code === 'SN001')?.message).toMatch(
          /ECONNREFUSED.*refused for \d+\.\ds after the doctor's pod started, \d+ tries, none accepted/,
        );
        const np = report.findings.find((f) => f.code === 'NP001');
        expect(np, JSON.stringify(report.findings, null, 2)).toBeDefined();
        expect(np?.message).toContain(POLICY);
        expect(np?.message).toContain('app.kubernetes.io/component');
        // Within the settle window plus one probe budget (the kubelet records whole seconds).
        expect(seconds).toBeLessThanOrEqual((SETTLE_WINDOW_MS + PROBE_BUDGET_MS) / 1000 + 1);
      }
      console.info(`[unlabelled] ${log.join('; ')}`);
    }, 1_800_000);

    it('with the policy deleted, the same unlabelled pod passes every probe', async () => {
      const net = cluster.kc.makeApiClient(NetworkingV1Api);
      const policy = await net.readNamespacedNetworkPolicy({ namespace: INSTALL_NAMESPACE, name: POLICY });
      await net.deleteNamespacedNetworkPolicy({ namespace: INSTALL_NAMESPACE, name: POLICY });
      try {
        expect((await install()).code).toBe(0);
        const tested = await helmTest();
        expect(tested.code, tested.output).toBe(0);
        const report = reportIn(tested.output);
        console.info(`[unlabelled, no policy] ${settledOf(report)}`);
        expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
        expect(codes(report)).not.toContain('NP001');
      } finally {
        const { metadata, spec } = policy;
        await net.createNamespacedNetworkPolicy({
          namespace: INSTALL_NAMESPACE,
          body: { metadata: { name: metadata?.name ?? POLICY, labels: metadata?.labels ?? {} }, ...(spec === undefined ? {} : { spec }) },
        });
      }
    }, 600_000);
  });

  // The node outlives the suite (test/support/node-setup.ts takes it down at the end of the run and
  // fails the run if it leaves any process, mount, cgroup, network namespace, interface, iptables chain or ipset).
  it('the suite leaves the shared node as it found it: every namespace, object and pod sandbox it added is gone', async () => {
    released = true;
    expect(await releaseNode((l) => console.info(`[node] ${l}`))).toEqual([]);
  }, 300_000);
});
