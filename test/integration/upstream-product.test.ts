// The real product on the real node: inference-cache's controller, server, webhooks and KV-event
// subscriber built from its source tree (../shared/upstream), cert-manager v1.21.1 built from its
// sources, installed as the product's README installs them (docs/real-node.md, "The real product"). The
// doctor's Helm test runs beside it (and under Argo CD and Flux); the upstream doctor, built from the
// same tree, runs against the same cluster for parity. No TypeScript stand-in runs here.
import {
  AdmissionregistrationV1Api,
  ApiException,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  type V1Pod,
} from '@kubernetes/client-node';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { CHECKS } from '../../src/checks/registry.ts';
import { GROUP, INSTALL_NAMESPACE, VERSION, applyObjects, deleteNamespace, type KubeObject } from '../../dev/cluster/manifests.ts';
import { missingForArgoCd } from '../../dev/cluster/node/argocd.ts';
import { missingForFlux } from '../../dev/cluster/node/flux.ts';
import { CONTROLLER_LEADER_LEASE } from '../../src/cluster/kinds/install.ts';
import { NODE_NAME } from '../../dev/cluster/node/addresses.ts';
import { missingForNode, nodeBinaries, type NodeCluster } from '../../dev/cluster/node/node.ts';
import { acquireNode, releaseNode } from '../support/shared-node.ts';
import { PULL_SECRET_NAME, doctorChartArgs, doctorImageValues, registryLoginArgs } from '../../dev/cluster/node/registry.ts';
import { installUpstream, type UpstreamInstall } from '../../dev/cluster/upstream/install.ts';
import {
  CACHE_INDEX,
  CONTROLLER_DEPLOYMENT,
  SERVER_DEPLOYMENT,
  SERVER_NETWORK_POLICY,
  WEBHOOK_CERT_SECRET,
  applyUpstream,
  renderUpstream,
} from '../../dev/cluster/upstream/product.ts';
import { missingForUpstream, upstreamPrograms } from '../../dev/cluster/upstream/programs.ts';
import {
  backendConditionReached,
  eventsOnlyBackend,
  fakeEnginePod,
  type BackendCondition,
  lmcacheImage,
  managedRedisBackend,
  podLocalBackend,
  workloadNamespace,
} from '../../dev/cluster/upstream/workloads.ts';
import { PACKAGE } from '../../dev/package.ts';
import { pollUntil } from '../../dev/poll.ts';
import { collectProcess } from '../../dev/process.ts';
import { applications, hookEntry } from '../support/argocd-apps.ts';
import { helmReleases } from '../support/flux-releases.ts';
import { runBundle } from '../support/bundle.ts';
import { HELM_MUST_RUN, helmBinaries, reportIn, runHelmAsync } from '../support/helm.ts';
import { ensureImage } from '../support/image/build.ts';
import type { JsonReport } from '../support/json-report.ts';
import { assertReportSchema } from '../support/report-schema.ts';

const missing = [...missingForNode(), ...missingForUpstream(), ...missingForArgoCd(), ...missingForFlux()];
if (missing.length > 0 && HELM_MUST_RUN)
  throw new Error(`the real product on the real node must run under CI: missing ${missing.join(', ')}`);
const skip = missing.length > 0;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; see docs/real-node.md "The real product")` : '';

const HELM4 = helmBinaries().find((h) => h.name === 'Helm 4');
const RELEASE = 'doctor';
const POD = `${RELEASE}-inferencecache-doctor`;
/** The monitor's Deployment (monitor.enabled). */
const MONITOR = `${RELEASE}-inferencecache-doctor-monitor`;
/** The checks upstream's doctor has: parity is judged on their findings. */
const UPSTREAM_CHECKS = new Set<string>(CHECKS.slice(0, 9).map((c) => c.name));

type Finding = JsonReport['findings'][number];
const codes = (report: JsonReport) => report.findings.map((f) => f.code);
const find = (report: JsonReport, code: string, resource?: string): Finding | undefined =>
  report.findings.find((f) => f.code === code && (resource === undefined || f.resource === resource));
const notOk = (report: JsonReport) =>
  report.findings.filter((f) => f.status === 'WARN' || f.status === 'FAIL').map((f) => `${f.code} ${f.resource ?? ''}`);

describe.skipIf(skip)(`the real inference-cache, built from its source, with the doctor's Helm test beside it${skipReason}`, () => {
  let cluster: NodeCluster;
  let released = false;
  let product: UpstreamInstall;
  const core = () => cluster.kc.makeApiClient(CoreV1Api);
  const apps = () => cluster.kc.makeApiClient(AppsV1Api);
  const custom = () => cluster.kc.makeApiClient(CustomObjectsApi);
  const admin = () => cluster.state.controlPlane.kubeconfigPath;
  const log = (l: string) => console.info(`[upstream] ${l}`);

  const helm = async (args: readonly string[]) => {
    if (HELM4 === undefined) throw new Error('no Helm 4');
    const run = await runHelmAsync(HELM4, [...args, '--kubeconfig', admin(), '--namespace', INSTALL_NAMESPACE], 600_000);
    return { code: run.code, output: `${run.stdout}${run.stderr}` };
  };
  /** The doctor's chart from the registry, the image pulled with the pull secret, and `values`. */
  const installChart = (values: readonly string[] = []) =>
    helm([
      'upgrade',
      '--install',
      RELEASE,
      ...doctorChartArgs(cluster.registry),
      '--reset-values',
      ...[...doctorImageValues(cluster.registry), ...values].flatMap((v) => ['--set', v]),
    ]);
  /** `helm test --logs`, and the report the pod printed. */
  const helmTest = async () => {
    const run = await helm(['test', RELEASE, '--logs', '--timeout', '5m']);
    const report = reportIn(run.output);
    assertReportSchema(report);
    return { ...run, report };
  };

  /** Waits until the controller has written condition `type` with one of `reasons`; returns it. */
  const conditionReached = async (namespace: string, name: string, type: string, reasons: readonly string[]): Promise<BackendCondition> => {
    const seen = await backendConditionReached(cluster.kc, namespace, name, type, `reason ${reasons.join(' or ')}`, (c) =>
      reasons.includes(c.reason ?? ''),
    );
    log(`${namespace}/${name}: ${type}=${seen.status} ${seen.reason ?? ''}: ${seen.message ?? ''}`);
    return seen;
  };
  const podOf = (namespace: string, name: string): Promise<V1Pod | undefined> =>
    core()
      .readNamespacedPod({ namespace, name })
      .catch(() => undefined);
  /**
   * Deletes a test's namespace and waits until it is gone: its objects (a CacheBackend the controller
   * finalizes, pods in their grace period) would otherwise still be there for the next test, and the
   * two doctors of a parity check, started a moment apart, could see them differently.
   */
  const dropNamespace = async (ns: string): Promise<void> => {
    await deleteNamespace(cluster.kc, ns);
    await pollUntil(`namespace ${ns} gone`, { timeoutMs: 300_000, intervalMs: 1_000 }, async () =>
      core()
        .readNamespace({ name: ns })
        .then(
          (n) => `still ${n.status?.phase ?? 'there'}`,
          (err: unknown) => (err instanceof ApiException && err.code === 404) || String(err),
        ),
    );
  };
  const scale = async (name: string, replicas: number): Promise<void> => {
    const current = await apps().readNamespacedDeploymentScale({ name, namespace: INSTALL_NAMESPACE });
    await apps().replaceNamespacedDeploymentScale({ name, namespace: INSTALL_NAMESPACE, body: { ...current, spec: { replicas } } });
    await pollUntil(`${name} at ${replicas} replicas`, { timeoutMs: 180_000, intervalMs: 1_000 }, async () => {
      const d = await apps().readNamespacedDeployment({ name, namespace: INSTALL_NAMESPACE });
      const pods = await core().listNamespacedPod({
        namespace: INSTALL_NAMESPACE,
        labelSelector: Object.entries(d.spec?.selector.matchLabels ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(','),
      });
      const running = pods.items.filter((p) => p.metadata?.name !== POD && !(p.metadata?.name ?? '').endsWith('-deploy')).length;
      const available = d.status?.availableReplicas ?? 0;
      return (available === replicas && running === replicas) || `${available} available, ${running} pods`;
    });
  };

  /** Both doctors with --config-only against the same cluster: the upstream one, and ours (its upstream checks). */
  const expectParity = async (state: string): Promise<void> => {
    const [theirs, ours] = await Promise.all([
      collectProcess(upstreamPrograms().cli, ['doctor', '--config-only', '-o', 'json', '--kubeconfig', admin()], {
        env: { PATH: process.env['PATH'] ?? '' },
        timeoutMs: 120_000,
      }),
      runBundle(['doctor', '--config-only', '-o', 'json', '--kubeconfig', admin()], { timeoutMs: 120_000 }),
    ]);
    const key = (f: Finding) => `${f.code} ${f.status} ${f.check} ${f.resource ?? ''}`;
    const upstream = (JSON.parse(theirs.stdout) as JsonReport).findings.map(key).sort();
    const own = (JSON.parse(ours.stdout) as JsonReport).findings
      .filter((f) => UPSTREAM_CHECKS.has(f.check))
      .map(key)
      .sort();
    log(`parity (${state}): ${upstream.length} findings from the upstream doctor, ${own.length} from ours`);
    expect(own, `ours vs upstream's doctor --config-only (${state})`).toEqual(upstream);
  };

  beforeAll(async () => {
    requireBundle();
    ensureImage();
    cluster = await acquireNode({ argocd: true, flux: true, log });
    product = await installUpstream(cluster, { log });
    if (HELM4 === undefined) throw new Error('no Helm 4');
    const login = await runHelmAsync(HELM4, registryLoginArgs(cluster.registry));
    expect(login.code, login.stderr).toBe(0);
    const installed = await installChart();
    expect(installed.code, installed.output).toBe(0);
  }, 1_200_000);
  afterAll(async () => {
    if (cluster !== undefined && !released) await releaseNode();
  }, 300_000);

  it('the install: cert-manager issued the webhook certificate and injected its CA; only the product and cert-manager run, from the registry', async () => {
    const { seconds } = product;
    log(`images ${seconds.images.toFixed(0)} s, cert-manager ${seconds.certManager.toFixed(0)} s, product ${seconds.product.toFixed(0)} s`);
    const secret = await core().readNamespacedSecret({ name: WEBHOOK_CERT_SECRET, namespace: INSTALL_NAMESPACE });
    expect(secret.type).toBe('kubernetes.io/tls');
    const admission = cluster.kc.makeApiClient(AdmissionregistrationV1Api);
    const validating = await admission.readValidatingWebhookConfiguration({ name: 'inference-cache-validating-webhook-configuration' });
    const mutating = await admission.readMutatingWebhookConfiguration({ name: 'inference-cache-mutating-webhook-configuration' });
    for (const hook of [...(validating.webhooks ?? []), ...(mutating.webhooks ?? [])])
      expect(hook.clientConfig.caBundle ?? '', `caBundle of ${hook.name}`).not.toBe('');
    const pods = (await core().listPodForAllNamespaces()).items;
    const images = new Set(pods.flatMap((p) => (p.spec?.containers ?? []).map((c) => c.image ?? '')));
    expect(images).toContain(product.images.controller);
    expect(images).toContain(product.images.server);
    expect(images).toContain(product.images.certManagerWebhook);
    expect(
      [...images].filter((i) => i.includes('reference-server')),
      'no stand-in server',
    ).toEqual([]);
    const index = (await custom().getClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'cacheindices',
      name: CACHE_INDEX,
    })) as {
      status?: { observedServer?: string };
    };
    expect(index.status?.observedServer).toMatch(/inference-cache-server/);
  });

  describe('a. healthy: an EventsOnly backend with a fake-engine pod', () => {
    const ns = 'events';
    beforeAll(async () => {
      await workloadNamespace(cluster.kc, ns, cluster.registry);
      await applyObjects(cluster.kc, [eventsOnlyBackend(ns, 'events', 'vllm-events-only')]);
      await applyObjects(cluster.kc, [fakeEnginePod(ns, 'engine-0', 'vllm-events-only', product.images)]);
      await conditionReached(ns, 'events', 'Ready', ['KVEventsObserved']);
    }, 300_000);

    it('turns Ready (KVEventsObserved) through the real webhook, injection and subscriber; helm test passes on its first attempt', async () => {
      const engine = await podOf(ns, 'engine-0');
      const sidecar = [...(engine?.spec?.initContainers ?? []), ...(engine?.spec?.containers ?? [])].find(
        (c) => c.image === product.images.kveventSubscriber,
      );
      expect(sidecar, 'the webhook injected the subscriber').toBeDefined();
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      expect(tested.report.attempts ?? [], 'one attempt').toHaveLength(0);
      expect(codes(tested.report).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
      expect(find(tested.report, 'SN004')?.message).toMatch(/answered 200/);
      expect(find(tested.report, 'CB006', `cachebackend/${ns}/events`)).toBeDefined();
      expect(find(tested.report, 'EP002', `pod/${ns}/engine-0`)).toBeDefined();
      expect(find(tested.report, 'CL002', `lease/${INSTALL_NAMESPACE}/${CONTROLLER_LEADER_LEASE}`)?.message).toMatch(/leads/);
      expect(notOk(tested.report)).toEqual([]);
      const ran = await podOf(INSTALL_NAMESPACE, POD);
      expect(ran?.spec?.nodeName).toBe(NODE_NAME);
      expect(ran?.spec?.imagePullSecrets).toEqual([{ name: PULL_SECRET_NAME }]);
    }, 600_000);

    it('d. parity: the upstream doctor and ours give the same findings', async () => {
      await expectParity('healthy');
    }, 300_000);

    it('the Argo CD PostSync run passes too', async () => {
      const argo = applications(cluster.kc, cluster.argocd);
      const name = 'doctor-argocd';
      await argo.create(name, {
        image: { repository: `${cluster.registry.host}/inferencecache-doctor`, tag: PACKAGE.version },
        imagePullSecrets: [{ name: PULL_SECRET_NAME }],
        hooks: { helmTest: true, argoCDPostSync: true },
      });
      try {
        const state = await argo.operationEnded(name);
        log(`Argo CD: ${state.phase ?? '?'}: ${state.message ?? ''}`);
        expect(state.phase, JSON.stringify(state, null, 2)).toBe('Succeeded');
        expect(hookEntry(state)).toMatchObject({ name: `${name}-inferencecache-doctor-deploy`, hookPhase: 'Succeeded' });
        const report = reportIn(
          await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: `${name}-inferencecache-doctor-deploy` }),
        );
        expect(codes(report)).toEqual(expect.arrayContaining(['SV003', 'SN004', 'PL002', 'PB002', 'CB006', 'EP002']));
      } finally {
        await argo.remove(name);
      }
    }, 600_000);

    it("Flux's helm-controller installs the chart from the registry and its Helm test passes too", async () => {
      const flux = helmReleases(cluster.kc, cluster.registry);
      const name = 'doctor-flux';
      await flux.applySource();
      await flux.create(name);
      try {
        const s = await flux.settled(name);
        const ready = flux.condition(s, 'Ready');
        log(`Flux: Ready=${ready?.status ?? '?'} ${ready?.reason ?? ''}: ${ready?.message ?? ''}`);
        expect(ready).toMatchObject({ status: 'True', reason: 'TestSucceeded' });
        expect(flux.condition(s, 'TestSuccess')?.status).toBe('True');
        const report = reportIn(await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: `${name}-inferencecache-doctor` }));
        assertReportSchema(report);
        expect(codes(report)).toEqual(expect.arrayContaining(['SV003', 'SN004', 'PL002', 'PB002', 'CB006', 'EP002']));
        expect(notOk(report)).toEqual([]);
      } finally {
        await flux.remove(name);
      }
    }, 600_000);

    it("e. ten helm test runs: the controller's ReplicaSet never adopts or deletes a doctor pod", async () => {
      const controllerPods = async () =>
        (
          await core().listNamespacedPod({ namespace: INSTALL_NAMESPACE, labelSelector: 'app.kubernetes.io/component=controller' })
        ).items.filter((p) => (p.metadata?.ownerReferences ?? []).some((o) => o.kind === 'ReplicaSet'));
      const [controller] = await controllerPods();
      const rsName = controller?.metadata?.ownerReferences?.[0]?.name ?? '';
      for (let run = 1; run <= 10; run++) {
        const tested = await helmTest();
        expect(tested.code, `run ${run}: ${tested.output}`).toBe(0);
        const doctor = await podOf(INSTALL_NAMESPACE, POD);
        expect(doctor?.status?.phase, `run ${run}`).toBe('Succeeded');
        expect(doctor?.metadata?.ownerReferences ?? [], `run ${run}: the doctor pod has no owner`).toEqual([]);
        expect((await controllerPods()).map((p) => p.metadata?.uid)).toEqual([controller?.metadata?.uid]);
        const rs = await apps().readNamespacedReplicaSet({ name: rsName, namespace: INSTALL_NAMESPACE });
        expect(rs.status?.replicas, `run ${run}`).toBe(1);
      }
      const events = await core().listNamespacedEvent({ namespace: INSTALL_NAMESPACE, fieldSelector: `involvedObject.name=${rsName}` });
      expect(events.items.filter((e) => (e.message ?? '').includes(POD)).map((e) => e.message)).toEqual([]);
    }, 900_000);

    it("g. the monitor of the controller's shape (probeControllerListener) probes :8081 run after run; the controller's ReplicaSet never adopts or counts it", async () => {
      const installed = await installChart(['monitor.enabled=true', 'monitor.probeControllerListener=true', 'monitor.interval=10s']);
      expect(installed.code, installed.output).toBe(0);
      try {
        const controllerRs = async () => {
          const pods = await core().listNamespacedPod({
            namespace: INSTALL_NAMESPACE,
            labelSelector: 'app.kubernetes.io/component=controller',
          });
          const owned = pods.items.filter((p) =>
            p.metadata?.ownerReferences?.some((o) => o.kind === 'ReplicaSet' && !(o.name ?? '').startsWith(MONITOR)),
          );
          const name = owned[0]?.metadata?.ownerReferences?.[0]?.name ?? '';
          return {
            name,
            pods: owned.map((p) => p.metadata?.uid),
            rs: await apps().readNamespacedReplicaSet({ name, namespace: INSTALL_NAMESPACE }),
          };
        };
        const before = await controllerRs();
        let metrics = '';
        let monitorPod: V1Pod | undefined;
        await pollUntil('three monitor runs', { timeoutMs: 300_000, intervalMs: 2_000 }, async () => {
          const pods = await core().listNamespacedPod({
            namespace: INSTALL_NAMESPACE,
            labelSelector: 'inferencecache.io/doctor-role=monitor',
          });
          monitorPod = pods.items[0];
          const ip = monitorPod?.status?.podIP;
          if (ip === undefined) return `no pod IP: ${monitorPod?.status?.phase ?? 'no pod'}`;
          metrics = await fetch(`http://${ip}:8080/metrics`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.text());
          const runs = [...metrics.matchAll(/^inferencecache_doctor_runs_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
          return runs >= 3 || `${runs} runs`;
        });
        // The real server answered the monitor's controller-audience token on :8081, run after run.
        expect(metrics).toMatch(/^inferencecache_doctor_findings\{check="SnapshotReachability",code="SN004",status="OK"\} 1$/m);
        expect(metrics).toMatch(/^inferencecache_doctor_findings\{check="ProbeReachability",code="PB002",status="OK"\} 1$/m);
        expect(metrics).toMatch(/^inferencecache_doctor_last_run_exit_code 0$/m);
        // The pod carries the controller's labels and account, owned by the monitor's own ReplicaSet.
        expect(monitorPod?.metadata?.labels?.['app.kubernetes.io/component']).toBe('controller');
        expect(monitorPod?.spec?.serviceAccountName).toBe('inference-cache-controller-manager');
        const owner = monitorPod?.metadata?.ownerReferences?.find((o) => o.controller === true);
        expect(owner?.kind).toBe('ReplicaSet');
        expect(owner?.name).toMatch(new RegExp(`^${MONITOR}-`));
        // Never Ready, so the controller's Services (the webhook's) never send it a request.
        expect(monitorPod?.status?.conditions?.find((c) => c.type === 'Ready')?.status).not.toBe('True');
        const after = await controllerRs();
        expect(after.name).toBe(before.name);
        expect(after.pods).toEqual(before.pods);
        expect(after.rs.status?.replicas).toBe(1);
        expect(after.rs.status?.fullyLabeledReplicas).toBe(1);
        const events = await core().listNamespacedEvent({
          namespace: INSTALL_NAMESPACE,
          fieldSelector: `involvedObject.name=${after.name}`,
        });
        expect(events.items.filter((e) => (e.message ?? '').includes(MONITOR)).map((e) => e.message)).toEqual([]);
      } finally {
        expect((await installChart()).code).toBe(0);
      }
    }, 600_000);
  });

  describe('b. the states the product reaches here, each with the finding an operator needs', () => {
    it('a PodLocal backend whose LMCache image cannot be pulled: MPServersNotReady, and IP004 names the image and its registry', async () => {
      const ns = 'podlocal';
      await workloadNamespace(cluster.kc, ns, cluster.registry);
      await applyObjects(cluster.kc, [podLocalBackend(ns, 'mp', 'vllm-mp', cluster.registry)]);
      await applyObjects(cluster.kc, [fakeEnginePod(ns, 'engine-0', 'vllm-mp', product.images)]);
      try {
        await conditionReached(ns, 'mp', 'Ready', ['MPServersNotReady']);
        await pollUntil('the LMCache container backing off its pull', { timeoutMs: 180_000, intervalMs: 1_000 }, async () => {
          const pod = await podOf(ns, 'engine-0');
          const statuses = [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])];
          const reason = statuses.find((s) => s.image === lmcacheImage(cluster.registry))?.state?.waiting?.reason;
          return reason === 'ImagePullBackOff' || reason === 'ErrImagePull' || `waiting: ${reason ?? 'none'}`;
        });
        const { report } = await helmTest();
        const ip004 = find(report, 'IP004', `pod/${ns}/engine-0`);
        expect(ip004?.message).toContain(lmcacheImage(cluster.registry));
        expect(ip004?.message).toContain(`from registry "${cluster.registry.host}"`);
        expect(ip004?.message).toMatch(/not found/);
        expect(find(report, 'CB001', `cachebackend/${ns}/mp`)?.message).toContain('MPServersNotReady');
        await expectParity('PodLocal, LMCache not pullable');
      } finally {
        await dropNamespace(ns);
      }
    }, 600_000);

    it('a backend no engine pod matches: NoEnginePods, CB001, CB002 and CB003', async () => {
      const ns = 'noengine';
      await workloadNamespace(cluster.kc, ns, cluster.registry);
      await applyObjects(cluster.kc, [podLocalBackend(ns, 'lonely', 'nobody', cluster.registry)]);
      try {
        await conditionReached(ns, 'lonely', 'Ready', ['NoEnginePods']);
        const { report } = await helmTest();
        const resource = `cachebackend/${ns}/lonely`;
        expect(find(report, 'CB001', resource)?.message).toContain('NoEnginePods');
        expect(find(report, 'CB002', resource)).toBeDefined();
        expect(find(report, 'CB003', resource)).toBeDefined();
        await expectParity('no engine pods');
      } finally {
        await dropNamespace(ns);
      }
    }, 600_000);

    it('managed Redis not ready: RemoteStorageReady not True, RS001 with its reason (beyond upstream), IP004 on the Redis pod', async () => {
      const ns = 'redis';
      await workloadNamespace(cluster.kc, ns, cluster.registry);
      await applyObjects(cluster.kc, [managedRedisBackend(ns, 'managed', 'vllm-mp-managed-redis', cluster.registry)]);
      try {
        const remote = await conditionReached(ns, 'managed', 'RemoteStorageReady', ['RemoteStoragePending', 'RemoteStorageUnavailable']);
        expect(remote.status).not.toBe('True');
        await pollUntil('the Redis pod backing off its pull', { timeoutMs: 180_000, intervalMs: 1_000 }, async () => {
          const pods = (await core().listNamespacedPod({ namespace: ns })).items;
          const reason = pods[0]?.status?.containerStatuses?.[0]?.state?.waiting?.reason;
          return reason === 'ImagePullBackOff' || reason === 'ErrImagePull' || `waiting: ${reason ?? 'no pod'}`;
        });
        const { report } = await helmTest();
        const rs001 = find(report, 'RS001', `cachebackend/${ns}/managed`);
        expect(rs001?.message).toMatch(/RemoteStorageReady=(False|Unknown) \(reason RemoteStorage(Pending|Unavailable)\)/);
        const redisPod = report.findings.find((f) => f.code === 'IP004' && (f.resource ?? '').startsWith(`pod/${ns}/managed-`));
        expect(redisPod?.message).toContain('/library/redis@sha256:');
        await expectParity('managed Redis not ready');
      } finally {
        await dropNamespace(ns);
      }
    }, 600_000);

    it("the server's NetworkPolicy changed to other labels: NP001 names the real policy and the label the doctor's pod lacks", async () => {
      const networking = cluster.kc.makeApiClient(NetworkingV1Api);
      const setComponent = async (component: string) => {
        const policy = await networking.readNamespacedNetworkPolicy({ name: SERVER_NETWORK_POLICY, namespace: INSTALL_NAMESPACE });
        const from = policy.spec?.ingress?.[1]?._from?.[0]?.podSelector?.matchLabels;
        if (from === undefined) throw new Error(`unexpected shape of ${SERVER_NETWORK_POLICY}`);
        from['app.kubernetes.io/component'] = component;
        await networking.replaceNamespacedNetworkPolicy({ name: SERVER_NETWORK_POLICY, namespace: INSTALL_NAMESPACE, body: policy });
      };
      await setComponent('gateway');
      try {
        let report: JsonReport | undefined;
        // kube-router enforces the change within seconds; until it has, the doctor still gets answers.
        await pollUntil('the doctor refused on :8081', { timeoutMs: 300_000, intervalMs: 1_000 }, async () => {
          const tested = await helmTest();
          report = tested.report;
          return (tested.code !== 0 && find(report, 'NP001') !== undefined) || `exit ${tested.code ?? '?'}: ${notOk(report).join(', ')}`;
        });
        if (report === undefined) throw new Error('no report');
        expect(codes(report)).toEqual(expect.arrayContaining(['SV003', 'SN001', 'PL001', 'PB001', 'NP001']));
        const np001 = find(report, 'NP001');
        expect(np001?.message).toContain(`NetworkPolicy "${INSTALL_NAMESPACE}/${SERVER_NETWORK_POLICY}"`);
        expect(np001?.message).toContain('app.kubernetes.io/component=gateway');
      } finally {
        await setComponent('controller');
      }
      await pollUntil('the doctor admitted again', { timeoutMs: 300_000, intervalMs: 1_000 }, async () => {
        const tested = await helmTest();
        return tested.code === 0 || notOk(tested.report).join(', ');
      });
    }, 900_000);

    it('the server scaled to 0: SV001, SN001, PL001 and PB001 FAIL, and helm test fails', async () => {
      await scale(SERVER_DEPLOYMENT, 0);
      try {
        const tested = await helmTest();
        expect(tested.code).not.toBe(0);
        for (const code of ['SV001', 'SN001', 'PL001', 'PB001']) expect(find(tested.report, code)?.status, code).toBe('FAIL');
        await expectParity('server scaled to 0');
      } finally {
        await scale(SERVER_DEPLOYMENT, 1);
      }
    }, 600_000);

    it("the webhook's certificate Secret deleted: cert-manager issues it again and admission keeps working; nothing for the doctor to report", async () => {
      const before = await core().readNamespacedSecret({ name: WEBHOOK_CERT_SECRET, namespace: INSTALL_NAMESPACE });
      const deleted = Date.now();
      await core().deleteNamespacedSecret({ name: WEBHOOK_CERT_SECRET, namespace: INSTALL_NAMESPACE });
      let caPem = '';
      await pollUntil('the Secret issued again', { timeoutMs: 120_000, intervalMs: 500 }, async () => {
        const again = await core()
          .readNamespacedSecret({ name: WEBHOOK_CERT_SECRET, namespace: INSTALL_NAMESPACE })
          .catch(() => undefined);
        caPem = again?.data?.['ca.crt'] ?? '';
        return (again !== undefined && again.metadata?.uid !== before.metadata?.uid && caPem !== '') || 'not yet';
      });
      log(`the webhook certificate was issued again ${((Date.now() - deleted) / 1000).toFixed(0)} s after its Secret was deleted`);
      const admission = cluster.kc.makeApiClient(AdmissionregistrationV1Api);
      const newCa = Buffer.from(caPem, 'base64').toString('utf8').trim();
      await pollUntil("cainjector adding the new CA to the webhooks' caBundle", { timeoutMs: 180_000, intervalMs: 1_000 }, async () => {
        const config = await admission.readValidatingWebhookConfiguration({ name: 'inference-cache-validating-webhook-configuration' });
        const bundle = Buffer.from(config.webhooks?.[0]?.clientConfig.caBundle ?? '', 'base64').toString('utf8');
        return bundle.includes(newCa) || 'not yet';
      });
      const ns = 'webhook-check';
      await workloadNamespace(cluster.kc, ns, cluster.registry);
      try {
        // The validating webhook fails closed: an object it admits means it answered, with a certificate the API server trusts.
        await applyObjects(cluster.kc, [eventsOnlyBackend(ns, 'after-rotation', 'nobody')], { dryRun: true });
        const tested = await helmTest();
        expect(tested.code, tested.output).toBe(0);
      } finally {
        await dropNamespace(ns);
      }
    }, 600_000);

    it('the controller stopped: CL001 (its leader Lease abandoned), CacheBackends refused (the webhook fails closed), new engine pods uninjected (EP001), the CacheIndex frozen', async () => {
      const ns = 'events';
      const index = async () =>
        JSON.stringify(
          (
            (await custom().getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'cacheindices', name: CACHE_INDEX })) as {
              status?: unknown;
            }
          ).status,
        );
      await scale(CONTROLLER_DEPLOYMENT, 0);
      try {
        const frozen = await index();
        const refused = await applyObjects(cluster.kc, [eventsOnlyBackend(ns, 'while-stopped', 'nobody')]).then(
          () => '',
          (err: unknown) => (err as Error).message,
        );
        log(`a CacheBackend while the controller is stopped: ${refused}`);
        expect(refused).toMatch(/webhook/i);
        await applyObjects(cluster.kc, [fakeEnginePod(ns, 'engine-late', 'vllm-events-only', product.images)]);
        const late = await podOf(ns, 'engine-late');
        expect(late?.spec?.containers.map((c) => c.name)).toEqual(['vllm']);
        let report: JsonReport | undefined;
        // The Lease was renewed seconds before the controller stopped; CL001 comes once it is a minute late.
        await pollUntil('CL001 for the abandoned leader Lease', { timeoutMs: 300_000, intervalMs: 5_000 }, async () => {
          const tested = await helmTest();
          report = tested.report;
          return (tested.code !== 0 && find(report, 'CL001') !== undefined) || `exit ${tested.code ?? '?'}: ${notOk(report).join(', ')}`;
        });
        if (report === undefined) throw new Error('no report');
        expect(find(report, 'CL001', `lease/${INSTALL_NAMESPACE}/${CONTROLLER_LEADER_LEASE}`)?.message).toMatch(/last renewed .* ago/);
        expect(find(report, 'EP001', `pod/${ns}/engine-late`)?.status).toBe('WARN');
        await expectParity('controller stopped');
        expect(await index(), 'nobody refreshes the CacheIndex').toBe(frozen);
      } finally {
        await core()
          .deleteNamespacedPod({ namespace: ns, name: 'engine-late', gracePeriodSeconds: 1 })
          .catch(() => undefined);
        await scale(CONTROLLER_DEPLOYMENT, 1);
        // Available is not leading: the new pod takes the Lease over once the old holder's has expired.
        await pollUntil('the restarted controller leading', { timeoutMs: 180_000, intervalMs: 1_000 }, async () => {
          const lease = await cluster.kc
            .makeApiClient(CoordinationV1Api)
            .readNamespacedLease({ name: CONTROLLER_LEADER_LEASE, namespace: INSTALL_NAMESPACE });
          const renewed = lease.spec?.renewTime === undefined ? 0 : new Date(lease.spec.renewTime).getTime();
          return (
            Date.now() - renewed < 20_000 ||
            `renewed at ${String(lease.spec?.renewTime ?? 'never')} by ${lease.spec?.holderIdentity ?? 'nobody'}`
          );
        });
      }
    }, 600_000);
  });

  it("f. PodSecurity restricted: the doctor's pod is admitted and passes; the product's controller pod is refused", async () => {
    const labels = { 'pod-security.kubernetes.io/enforce': 'restricted' };
    const namespace = await core().readNamespace({ name: INSTALL_NAMESPACE });
    namespace.metadata = { ...namespace.metadata, labels: { ...(namespace.metadata?.labels ?? {}), ...labels } };
    await core().replaceNamespace({ name: INSTALL_NAMESPACE, body: namespace });
    try {
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      // The pod template as the API server serves it (the client's typed model renames some fields).
      const controller = JSON.parse(
        execFileSync(
          nodeBinaries().kubectl,
          ['--kubeconfig', admin(), 'get', 'deployment', CONTROLLER_DEPLOYMENT, '-n', INSTALL_NAMESPACE, '-o', 'json'],
          {
            encoding: 'utf8',
          },
        ),
      ) as { spec: { template: { spec: Record<string, unknown> } } };
      const pod: KubeObject = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'controller-admission-check', namespace: INSTALL_NAMESPACE },
        spec: controller.spec.template.spec,
      };
      const refused = await applyObjects(cluster.kc, [pod], { dryRun: true }).then(
        () => '',
        (err: unknown) => (err as Error).message,
      );
      log(`the controller's pod under restricted: ${refused}`);
      expect(refused).toMatch(/violates PodSecurity "restricted/);
      expect(refused).toMatch(/seccompProfile/);
    } finally {
      const current = await core().readNamespace({ name: INSTALL_NAMESPACE });
      delete current.metadata?.labels?.['pod-security.kubernetes.io/enforce'];
      await core().replaceNamespace({ name: INSTALL_NAMESPACE, body: current });
    }
  }, 600_000);

  describe("c. the server with upstream's server-tls overlay: its certificate from cert-manager", () => {
    beforeAll(async () => {
      const dir = `${cluster.state.dir}/upstream-server-tls`;
      renderUpstream(nodeBinaries().kubectl, dir, 'server-tls', product.images, cluster.registry);
      await applyUpstream(nodeBinaries().kubectl, admin(), dir);
      await pollUntil('the server rolled out with TLS', { timeoutMs: 300_000, intervalMs: 1_000 }, async () => {
        const d = await apps().readNamespacedDeployment({ name: SERVER_DEPLOYMENT, namespace: INSTALL_NAMESPACE });
        const args = d.spec?.template.spec?.containers[0]?.args ?? [];
        const done = d.status?.updatedReplicas === 1 && d.status.availableReplicas === 1 && (d.status.replicas ?? 0) === 1;
        return (
          (args.some((a) => a.startsWith('--tls-cert-file')) && done) ||
          `updated ${d.status?.updatedReplicas ?? 0}, available ${d.status?.availableReplicas ?? 0}`
        );
      });
    }, 600_000);

    it("the chart's TLS values with cert-manager's CA: SV003 over TLS and TL011; helm test passes", async () => {
      expect((await installChart(['serverTLS.enabled=true'])).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      expect(find(tested.report, 'SV003')?.status).toBe('OK');
      expect(find(tested.report, 'TL011')?.message).toMatch(/verif/);
    }, 600_000);

    it('a name the certificate does not carry: TL003', async () => {
      expect((await installChart(['serverTLS.enabled=true', 'serverTLS.serverName=elsewhere.example'])).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code).not.toBe(0);
      expect(find(tested.report, 'TL003')?.message).toContain('elsewhere.example');
    }, 600_000);

    it('TLS values not set: TL001 says the port speaks TLS and the doctor has no CA', async () => {
      expect((await installChart()).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code).not.toBe(0);
      expect(find(tested.report, 'TL001')?.status).toBe('FAIL');
      await expectParity('server over TLS');
    }, 600_000);
  });

  // The node outlives the suite (test/support/node-setup.ts takes it down at the end of the run and
  // fails the run if it leaves any process, mount, cgroup, network namespace, interface, iptables chain or ipset).
  it('the suite leaves the shared node as it found it: the product, cert-manager, their CRDs, webhooks and namespaces are gone', async () => {
    released = true;
    expect(await releaseNode(log)).toEqual([]);
  }, 300_000);
});
