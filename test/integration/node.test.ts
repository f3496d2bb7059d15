// The product's central claim on a real dataplane: a kubelet on containerd and runc runs the chart's hook
// pod from the image `npm run image` builds; the pod reaches the server through the CNI bridge, the
// Service ClusterIP kube-proxy programs and the name CoreDNS answers, and kube-router enforces the
// server's NetworkPolicy on :8081. Then the proofs that only a dataplane that drops packets can give,
// and a teardown that leaves nothing in the machine.
import { execFileSync } from 'node:child_process';
import { CoreV1Api, DiscoveryV1Api, NetworkingV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../support/bundle.ts';
import type { JsonReport } from '../support/cluster-objects.ts';
import { CACHE_BACKENDS, INSTALL_NAMESPACE, applyObjects, writeStatus } from '../support/fixtures.ts';
import { CHART_DIR, HELM_MUST_RUN, helmBinaries, reportIn, runHelmAsync } from '../support/helm.ts';
import { ensureImage } from '../support/image/build.ts';
import { BRIDGE, DNS_SERVICE_IP, GUARD_CHAIN, NODE_NAME, POD_CIDR, SERVICE_CIDR } from '../support/node/addresses.ts';
import { missingForNode, nodeLeftovers, startNodeCluster, type NodeCluster } from '../support/node/cluster.ts';
import { IMAGES } from '../support/node/images.ts';
import { REMOTE_ENDPOINT, WORKLOAD_NAMESPACE, deploySampleInstall } from '../support/node/sample-install.ts';
import { healthyBackendStatus } from '../support/sample-install.ts';

const HELMS = helmBinaries().map((helm) => ({ helm, label: helm.name, short: helm.name === 'Helm 3' ? 'h3' : 'h4' }));
const missing = [...missingForNode(), ...HELMS.filter(({ helm }) => helm.missing !== '').map(({ helm }) => helm.missing)];
if (missing.length > 0 && HELM_MUST_RUN)
  throw new Error(`the real node must run under CI: missing ${missing.join(', ')} (.ci/run installs them)`);
const skip = missing.length > 0;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; see README "A real node")` : '';

const CONTROLLER_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'controller' };
const POLICY = 'inference-cache-server-snapshot';
const codes = (report: JsonReport) => report.findings.map((f) => f.code);
/**
 * The hook pod's wait (`--wait`) in these runs. kube-router learns a pod's address from the API server,
 * and the kubelet publishes it about a second after the container starts, by when the doctor has probed
 * :8081 and been refused; the next attempt passes (measured: README, "A real node").
 */
const WAIT = 'wait.helmTestSeconds=60';
/** What the attempts of a report counted, for the log of a run. */
const attemptsOf = (report: JsonReport) =>
  (report.attempts ?? [])
    .map((a) => `#${a.attempt} ${a.elapsed} exit ${a.exitCode}${a.counted.length > 0 ? ` (${a.counted.join(', ')})` : ''}`)
    .join('; ');
const inCidr = (ip: string, cidr: string): boolean => {
  const [base = '', bits = '32'] = cidr.split('/');
  const n = (a: string) => a.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n(ip) / size) === Math.floor(n(base) / size);
};

describe.skipIf(skip)(`a real node: kubelet, containerd, CNI bridge, kube-proxy, CoreDNS, kube-router${skipReason}`, () => {
  let cluster: NodeCluster;
  const core = () => cluster.kc.makeApiClient(CoreV1Api);
  const pod = (name: string): Promise<V1Pod> => core().readNamespacedPod({ namespace: INSTALL_NAMESPACE, name });
  /** The healthy backend's last KV event, 5 s ago again: the suite runs for longer than its freshness window. */
  const refreshBackend = () =>
    writeStatus(cluster.kc, { ...CACHE_BACKENDS, namespace: WORKLOAD_NAMESPACE, name: 'chat' }, healthyBackendStatus(REMOTE_ENDPOINT));

  beforeAll(async () => {
    requireBundle();
    ensureImage();
    cluster = await startNodeCluster({ log: (l) => console.info(`[node] ${l}`) });
    await deploySampleInstall(cluster.kc, (l) => console.info(`[node] ${l}`));
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
    await cluster?.stop();
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

  describe.each(HELMS)('$label', ({ helm: binary, label, short }) => {
    const release = `doctor-${short}`;
    const podName = `${release}-inferencecache-doctor`;
    const image = ['image.repository=' + IMAGES.doctorRepository, 'image.tag=0.1.0', 'image.pullPolicy=Never'];
    const helm = async (args: string[]) => {
      const run = await runHelmAsync(
        binary,
        [...args, '--kubeconfig', cluster.state.controlPlane.kubeconfigPath, '--namespace', INSTALL_NAMESPACE],
        600_000,
      );
      return { code: run.code, output: `${run.stdout}${run.stderr}`, ms: run.elapsedMs };
    };
    const upgrade = (values: string[] = []) =>
      helm(['upgrade', '--install', release, CHART_DIR, '--reset-values', ...[...image, ...values].flatMap((v) => ['--set', v])]);
    const helmTest = async () => {
      await refreshBackend();
      return helm(['test', release, '--logs', '--timeout', '5m']);
    };

    afterAll(async () => {
      await helm(['uninstall', release]);
    });

    it('helm install + helm test --logs: SV003, SN004, PL002, PB002 through the Service IP, the DNS name and the policy', async () => {
      const installed = await upgrade([WAIT]);
      expect(installed.code, installed.output).toBe(0);
      const discovery = cluster.kc.makeApiClient(DiscoveryV1Api);
      const seen: (boolean | undefined)[] = [];
      const testing = helmTest();
      for (let done = false; !done; await new Promise((r) => setTimeout(r, 250))) {
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
      const report = reportIn(tested.output);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
      expect(report.findings.filter((f) => f.status !== 'OK')).toEqual([]);
      console.info(`[${label}] attempts: ${attemptsOf(report)}`);
      const sv003 = report.findings.find((f) => f.code === 'SV003');
      expect(sv003?.resource).toBe('inference-cache-server.inference-cache-system.svc:9090');
      const done = await pod(podName);
      expect(done.spec?.nodeName).toBe(NODE_NAME);
      expect(done.spec?.containers[0]?.image).toBe(`${IMAGES.doctorRepository}:0.1.0`);
      expect(done.status?.containerStatuses?.[0]?.imageID).toMatch(/sha256:/);
      expect(inCidr(done.status?.podIP ?? '', POD_CIDR)).toBe(true);
      // The kubelet wrote the termination message from the file the doctor wrote.
      expect(done.status?.containerStatuses?.[0]?.state?.terminated?.message).toMatch(/^inferencecache doctor: exit 0/);
      expect(done.status?.conditions?.find((c) => c.type === 'Ready')?.status).not.toBe('True');
      expect(seen.length, 'the EndpointSlice controller listed the running pod').toBeGreaterThan(0);
      expect(seen.every((r) => r === false)).toBe(true);
      console.info(`[${label}] helm install ${installed.ms} ms + helm test ${tested.ms} ms on the real node`);
    }, 600_000);

    it('a rerun of helm test replaces the pod and passes again', async () => {
      const first = (await pod(podName)).metadata?.uid;
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      expect(codes(reportIn(tested.output)).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
      expect((await pod(podName)).metadata?.uid).not.toBe(first);
    }, 600_000);

    it('a token of the wrong audience: SN005 from the server through the real path', async () => {
      expect((await upgrade([WAIT, 'token.audience=https://kubernetes.default.svc'])).code).toBe(0);
      const tested = await helmTest();
      const report = reportIn(tested.output);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN005', 'PL002', 'PB002']);
      expect(report.findings.find((f) => f.code === 'SN005')?.message).toContain('401');
    }, 600_000);

    it('the post-install hook runs the same doctor on the node and helm install succeeds', async () => {
      await helm(['uninstall', release]);
      await refreshBackend();
      const installed = await upgrade(['hooks.postInstallUpgrade=true', 'wait.afterDeploySeconds=60']);
      expect(installed.code, installed.output).toBe(0);
      const log = await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: `${podName}-deploy` });
      expect(codes(reportIn(log)).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
      const hook = await pod(`${podName}-deploy`);
      expect(hook.status?.phase).toBe('Succeeded');
      expect(hook.spec?.nodeName).toBe(NODE_NAME);
    }, 600_000);
  });

  describe('the enforced NetworkPolicy', () => {
    const [first] = HELMS;
    const release = 'doctor-np';
    const podName = `${release}-inferencecache-doctor`;
    const helm = async (args: string[]) => {
      if (first === undefined) throw new Error('no Helm');
      const run = await runHelmAsync(
        first.helm,
        [...args, '--kubeconfig', cluster.state.controlPlane.kubeconfigPath, '--namespace', INSTALL_NAMESPACE],
        600_000,
      );
      return { code: run.code, output: `${run.stdout}${run.stderr}` };
    };
    const unlabelled = (wait: number) => [
      `image.repository=${IMAGES.doctorRepository}`,
      'image.tag=0.1.0',
      'image.pullPolicy=Never',
      'controller.labels.app\\.kubernetes\\.io/component=null',
      `wait.helmTestSeconds=${wait}`,
    ];
    const install = (wait: number) =>
      helm(['upgrade', '--install', release, CHART_DIR, '--reset-values', ...unlabelled(wait).flatMap((v) => ['--set', v])]);
    const helmTest = async () => {
      await refreshBackend();
      return helm(['test', release, '--logs', '--timeout', '5m']);
    };

    afterAll(async () => {
      await helm(['uninstall', release]);
    });

    it('a pod without the controller labels is dropped on :8081: its probes time out and NP001 names the policy and the label', async () => {
      // 20 s of attempts: long after kube-router has learnt the pod's address, it still refuses it.
      const installed = await install(20);
      expect(installed.code, installed.output).toBe(0);
      const tested = await helmTest();
      const report = reportIn(tested.output);
      console.info(`[unlabelled] attempts: ${attemptsOf(report)}; pod ${(await pod(podName)).status?.podIP ?? '?'}`);
      expect(tested.code, tested.output).not.toBe(0);
      expect((await pod(podName)).metadata?.labels?.['app.kubernetes.io/component']).toBeUndefined();
      expect(report.attempts?.length).toBeGreaterThanOrEqual(2);
      expect(report.attempts?.every((a) => a.counted.includes('SN001'))).toBe(true);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN001', 'PL001', 'PB001']);
      // kube-router rejects (ICMP port unreachable) rather than drops: refused at once, not a timeout.
      expect(report.findings.find((f) => f.code === 'SN001')?.message).toMatch(/ECONNREFUSED|timed out|no answer/);
      const np = report.findings.find((f) => f.code === 'NP001');
      expect(np, JSON.stringify(report.findings, null, 2)).toBeDefined();
      expect(np?.message).toContain(POLICY);
      expect(np?.message).toContain('app.kubernetes.io/component');
    }, 600_000);

    it('with the policy deleted, the same unlabelled pod passes every probe', async () => {
      const net = cluster.kc.makeApiClient(NetworkingV1Api);
      const policy = await net.readNamespacedNetworkPolicy({ namespace: INSTALL_NAMESPACE, name: POLICY });
      await net.deleteNamespacedNetworkPolicy({ namespace: INSTALL_NAMESPACE, name: POLICY });
      try {
        expect((await install(60)).code).toBe(0);
        const tested = await helmTest();
        expect(tested.code, tested.output).toBe(0);
        const report = reportIn(tested.output);
        console.info(`[unlabelled, no policy] attempts: ${attemptsOf(report)}`);
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

  it('cluster down leaves no process, mount, cgroup, network namespace, interface, iptables chain or ipset', async () => {
    const state = cluster.state;
    await cluster.stop();
    expect(nodeLeftovers(state)).toEqual([]);
  }, 300_000);
});
