// Argo CD, for real: its application-controller and repo-server (v3.6.2, built here) sync the chart from
// a Helm repository into the real node's cluster and run the doctor as the PostSync hook. Assertions read
// the Application's status, as `argocd app get` shows it (docs/real-node.md, "Argo CD").
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { createBackend, reconciledBackendStatus } from '../../dev/cluster/objects.ts';
import { CACHE_BACKENDS, INSTALL_NAMESPACE, applyObjects, createNamespace, writeStatus } from '../../dev/cluster/manifests.ts';
import { ARGOCD_NAMESPACE, missingForArgoCd } from '../../dev/cluster/node/argocd.ts';
import { missingForNode, type NodeCluster } from '../../dev/cluster/node/node.ts';
import { acquireNode, releaseNode } from '../support/shared-node.ts';
import { PULL_SECRET_NAME, pullSecret } from '../../dev/cluster/node/registry.ts';
import { REMOTE_ENDPOINT, WORKLOAD_NAMESPACE, deploySampleInstall, setServerHealth } from '../../dev/cluster/node/sample-install-pods.ts';
import { healthyBackendStatus } from '../../dev/cluster/sample-install-local.ts';
import { PACKAGE } from '../../dev/package.ts';
import { pollUntil } from '../../dev/poll.ts';
import { HELM_MUST_RUN, reportIn } from '../support/helm.ts';
import { ensureImage } from '../support/image/build.ts';
import { assertReportSchema } from '../support/report-schema.ts';
import { APPLICATIONS, applications, hookEntry } from '../support/argocd-apps.ts';

const missing = [...missingForNode(), ...missingForArgoCd()];
if (missing.length > 0 && HELM_MUST_RUN) throw new Error(`Argo CD on the real node must run under CI: missing ${missing.join(', ')}`);
const skip = missing.length > 0;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; see docs/real-node.md "Argo CD")` : '';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** The node's registry, where the doctor image built here is pushed (set once the cluster runs). */
let registryHost = '';

/** The chart's values for an Application: the doctor image from the node's registry with its pull secret, the PostSync hook on. */
function chartValues(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    image: { repository: `${registryHost}/inferencecache-doctor`, tag: PACKAGE.version },
    imagePullSecrets: [{ name: PULL_SECRET_NAME }],
    hooks: { helmTest: true, argoCDPostSync: true },
    ...extra,
  };
}

describe.skipIf(skip)(`Argo CD v3.6.2 syncs the chart and runs the PostSync doctor on the real node${skipReason}`, () => {
  let cluster: NodeCluster;
  let released = false;
  const core = () => cluster.kc.makeApiClient(CoreV1Api);
  const custom = () => cluster.kc.makeApiClient(CustomObjectsApi);
  const apps = () => applications(cluster.kc, cluster.argocd);
  const createApplication = (name: string, values: Record<string, unknown>, revision?: string) => apps().create(name, values, revision);
  const application = (name: string) => apps().status(name);
  const operationEnded = (name: string, since?: string) => apps().operationEnded(name, since);
  const deleteApplication = (name: string) => apps().remove(name);
  const pod = (name: string): Promise<V1Pod | undefined> =>
    core()
      .readNamespacedPod({ namespace: INSTALL_NAMESPACE, name })
      .catch(() => undefined);
  const refreshBackend = () =>
    writeStatus(cluster.kc, { ...CACHE_BACKENDS, namespace: WORKLOAD_NAMESPACE, name: 'chat' }, healthyBackendStatus(REMOTE_ENDPOINT));

  beforeAll(async () => {
    requireBundle();
    ensureImage();
    cluster = await acquireNode({ argocd: true, log: (l) => console.info(`[node] ${l}`) });
    registryHost = cluster.registry.host;
    await deploySampleInstall(cluster.kc);
    await applyObjects(cluster.kc, [pullSecret(cluster.registry, INSTALL_NAMESPACE)]);
  }, 900_000);
  afterAll(async () => {
    if (cluster !== undefined && !released) await releaseNode();
  }, 300_000);

  it('a. a healthy install: the sync Succeeds, the PostSync pod ran the doctor and completed, no helm test pod', async () => {
    const name = 'doctor-healthy';
    const podName = `${name}-inferencecache-doctor`;
    await refreshBackend();
    await createApplication(name, chartValues());
    const state = await operationEnded(name);
    console.info(`[argocd a] ${state.phase ?? '?'}: ${state.message ?? ''} (${state.startedAt ?? ''} → ${state.finishedAt ?? ''})`);
    expect(state.phase, JSON.stringify(state, null, 2)).toBe('Succeeded');
    const hook = hookEntry(state);
    expect(hook).toMatchObject({ name: `${podName}-deploy`, hookPhase: 'Succeeded' });
    const ran = await pod(`${podName}-deploy`);
    expect(ran?.status?.phase).toBe('Succeeded');
    expect(ran?.metadata?.finalizers ?? []).not.toContain('argocd.argoproj.io/hook-finalizer');
    const report = reportIn(await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: `${podName}-deploy` }));
    assertReportSchema(report);
    expect(report.findings.map((f) => f.code)).toEqual(expect.arrayContaining(['SV003', 'SN004', 'PL002', 'PB002']));
    expect(await pod(podName), 'Argo CD never applies a helm test hook').toBeUndefined();
  }, 600_000);

  it("b. a broken install (server NOT_SERVING): the sync Fails, and the hook's message is the doctor's termination message", async () => {
    const name = 'doctor-broken';
    await setServerHealth(cluster.kc, 'NOT_SERVING');
    try {
      await refreshBackend();
      await createApplication(name, chartValues({ wait: { afterDeploySeconds: 20 } }));
      const state = await operationEnded(name);
      const hook = hookEntry(state);
      console.info(`[argocd b] ${state.phase ?? '?'}: ${state.message ?? ''}; hook ${hook?.hookPhase ?? '?'}: ${hook?.message ?? ''}`);
      expect(state.phase).toBe('Failed');
      expect(hook?.hookPhase).toBe('Failed');
      expect(hook?.message).toMatch(/^inferencecache doctor: exit 2/);
      expect(hook?.message).toContain('SV002');
      const terminated = (await pod(`${name}-inferencecache-doctor-deploy`))?.status?.containerStatuses?.[0]?.state?.terminated;
      expect(hook?.message).toBe(terminated?.message);
    } finally {
      await setServerHealth(cluster.kc, 'SERVING');
      await deleteApplication(name);
    }
  }, 600_000);

  it('c. a fresh install whose CacheBackend turns Ready 8-10 s into the hook: with wait.afterDeploySeconds the sync Succeeds after several attempts', async () => {
    const name = 'doctor-late';
    const ns = 'late-argocd';
    await createNamespace(cluster.kc, ns);
    await createBackend(cluster.kc, ns, 'late', {});
    try {
      await refreshBackend();
      await createApplication(name, chartValues({ failOn: 'warn', wait: { afterDeploySeconds: 90 } }));
      const hookPod = `${name}-inferencecache-doctor-deploy`;
      await pollUntil('the PostSync pod running', { timeoutMs: 300_000, intervalMs: 250 }, async () => {
        const phase = (await pod(hookPod))?.status?.phase;
        return phase === 'Running' || `phase ${phase ?? 'none'}`;
      });
      await sleep(8_000 + Math.random() * 2_000);
      await writeStatus(cluster.kc, { ...CACHE_BACKENDS, namespace: ns, name: 'late' }, reconciledBackendStatus());
      const state = await operationEnded(name);
      expect(state.phase, JSON.stringify(state, null, 2)).toBe('Succeeded');
      const report = reportIn(await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: hookPod }));
      const attempts = report.attempts ?? [];
      console.info(`[argocd c] ${attempts.length} attempts: ${attempts.map((a) => `${a.elapsed} exit ${a.exitCode}`).join('; ')}`);
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      expect(attempts[0]?.counted).toContain('CB001');
      expect(report.summary).toMatchObject({ exitCode: 0 });
    } finally {
      await custom().deleteNamespacedCustomObject({ ...CACHE_BACKENDS, namespace: ns, name: 'late' });
      await deleteApplication(name);
    }
  }, 600_000);

  it('d. a second sync (a new chart revision) runs the hook again: afterwards exactly one doctor pod', async () => {
    const name = 'doctor-healthy';
    const argocd = cluster.argocd;
    if (argocd === undefined) throw new Error('no Argo CD');
    const hookPod = `${name}-inferencecache-doctor-deploy`;
    const before = (await pod(hookPod))?.metadata?.uid;
    const first = (await application(name)).operationState?.startedAt ?? '';
    const [major = '0', minor = '0', patch = '0'] = argocd.chartVersion.split(/[.+-]/);
    const next = `${major}.${minor}.${Number(patch) + 1}`;
    argocd.publishChart(next);
    await refreshBackend();
    await custom().patchNamespacedCustomObject({
      ...APPLICATIONS,
      namespace: ARGOCD_NAMESPACE,
      name,
      body: [{ op: 'replace', path: '/spec/source/targetRevision', value: next }],
    });
    const state = await operationEnded(name, first);
    expect(state.phase, JSON.stringify(state, null, 2)).toBe('Succeeded');
    expect(state.syncResult?.revision).toBe(next);
    const pods = (await core().listNamespacedPod({ namespace: INSTALL_NAMESPACE })).items.filter((p) =>
      (p.metadata?.name ?? '').startsWith(`${name}-inferencecache-doctor`),
    );
    expect(pods.map((p) => p.metadata?.name)).toEqual([hookPod]);
    expect(pods[0]?.metadata?.uid).not.toBe(before);
  }, 600_000);

  it('e. a hook pod no node can take: Argo CD waits on it (Running, the pod Pending) until the operation is terminated', async () => {
    const name = 'doctor-unschedulable';
    const hookPod = `${name}-inferencecache-doctor-deploy`;
    await createApplication(name, chartValues({ nodeSelector: { 'inferencecache.io/no-such-node': 'true' } }));
    try {
      await pollUntil(
        'the PostSync pod created',
        { timeoutMs: 300_000, intervalMs: 500 },
        async () => (await pod(hookPod)) !== undefined || 'not yet',
      );
      await sleep(60_000);
      const waiting = (await application(name)).operationState;
      const pending = await pod(hookPod);
      const scheduled = pending?.status?.conditions?.find((c) => c.type === 'PodScheduled');
      console.info(
        `[argocd e] after 60 s: operation ${waiting?.phase ?? '?'} (${waiting?.message ?? ''}); pod ${pending?.status?.phase ?? '?'}, PodScheduled ${scheduled?.status ?? '?'} ${scheduled?.reason ?? ''}`,
      );
      expect(waiting?.phase).toBe('Running');
      expect(pending?.status?.phase).toBe('Pending');
      expect(scheduled).toMatchObject({ status: 'False', reason: 'Unschedulable' });
      expect(pending?.status?.startTime, 'no kubelet started it, so activeDeadlineSeconds never counts').toBeUndefined();
      // What `argocd app terminate-op` does.
      await custom().patchNamespacedCustomObject({
        ...APPLICATIONS,
        namespace: ARGOCD_NAMESPACE,
        name,
        body: [{ op: 'replace', path: '/status/operationState/phase', value: 'Terminating' }],
      });
      const ended = await operationEnded(name);
      console.info(`[argocd e] terminated: ${ended.phase ?? '?'}: ${ended.message ?? ''}`);
      expect(ended.phase).toBe('Failed');
    } finally {
      await deleteApplication(name);
      await core()
        .deleteNamespacedPod({ namespace: INSTALL_NAMESPACE, name: hookPod })
        .catch(() => undefined);
    }
  }, 600_000);

  // The node outlives the suite (test/support/node-setup.ts takes it down at the end of the run and
  // fails the run if it leaves any process, mount, cgroup, network namespace, interface, iptables chain or ipset).
  it("Redis, the repo-server, the application-controller and the Helm repository are the node's, to be stopped with it; the suite leaves the node as it found it", async () => {
    const state = cluster.state;
    for (const name of ['redis', 'argocd-repo-server', 'argocd-application-controller', 'helm-repo'])
      expect(state.pids[name], name).toBeDefined();
    released = true;
    expect(await releaseNode((l) => console.info(`[node] ${l}`))).toEqual([]);
  }, 300_000);
});
