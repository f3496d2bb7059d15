// Flux, for real: source-controller v1.9.6 pulls the chart from the node's OCI registry (TLS with its own
// CA, the pull secret) as an OCIRepository, and helm-controller v1.6.3 installs it from chart/README.md's
// HelmRelease and runs its Helm test (`spec.test.enable`) on the real node. Assertions read what
// `kubectl describe helmrelease` and `kubectl events --for HelmRelease/<name>` show, and what
// `kubectl describe pod` shows of the doctor's pod (docs/real-node.md, "Flux"; docs/chart.md, "Flux").
import { execFileSync } from 'node:child_process';
import { CoreV1Api, CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { resolveBinaries } from '../../dev/cluster/controlplane.ts';
import { createBackend, reconciledBackendStatus } from '../../dev/cluster/objects.ts';
import {
  CACHE_BACKENDS,
  INSTALL_NAMESPACE,
  applyObjects,
  createNamespace,
  deleteNamespace,
  writeStatus,
} from '../../dev/cluster/manifests.ts';
import { OCI_REPOSITORIES, missingForFlux } from '../../dev/cluster/node/flux.ts';
import { missingForNode, nodeBinaries, type NodeCluster } from '../../dev/cluster/node/node.ts';
import { acquireNode, releaseNode } from '../support/shared-node.ts';
import { pullSecret, publishChart } from '../../dev/cluster/node/registry.ts';
import { REMOTE_ENDPOINT, WORKLOAD_NAMESPACE, deploySampleInstall, setServerHealth } from '../../dev/cluster/node/sample-install-pods.ts';
import { healthyBackendStatus } from '../../dev/cluster/sample-install-local.ts';
import { PACKAGE } from '../../dev/package.ts';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import { pollUntil } from '../../dev/poll.ts';
import { helmReleases, readmeFluxManifests, type ReleaseStatus } from '../support/flux-releases.ts';
import { HELM_MUST_RUN, reportIn } from '../support/helm.ts';
import { ensureImage } from '../support/image/build.ts';
import { assertReportSchema } from '../support/report-schema.ts';

const missing = [...missingForNode(), ...missingForFlux()];
if (missing.length > 0 && HELM_MUST_RUN) throw new Error(`Flux on the real node must run under CI: missing ${missing.join(', ')}`);
const skip = missing.length > 0;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; see docs/real-node.md "Flux")` : '';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** The doctor's test pod of a release (chart: `<fullname>`, the release name plus the chart's). */
const testPod = (release: string) => `${release}-inferencecache-doctor`;
/** What Flux's test failure message names: the failed pod, as `Pod/<namespace>/<name> status: 'Failed'`. */
const FAILED_POD = /Pod\/([a-z0-9.-]+)\/([a-z0-9.-]+) status: 'Failed'/;

describe.skipIf(skip)(
  `Flux helm-controller v1.6.3 installs the chart from the OCI registry and runs its Helm test on the real node${skipReason}`,
  () => {
    let cluster: NodeCluster;
    let released = false;
    const core = () => cluster.kc.makeApiClient(CoreV1Api);
    const custom = () => cluster.kc.makeApiClient(CustomObjectsApi);
    const releases = () => helmReleases(cluster.kc, cluster.registry);
    const pod = (name: string): Promise<V1Pod | undefined> =>
      core()
        .readNamespacedPod({ namespace: INSTALL_NAMESPACE, name })
        .catch(() => undefined);
    const podsOf = async (release: string): Promise<V1Pod[]> =>
      (await core().listNamespacedPod({ namespace: INSTALL_NAMESPACE, labelSelector: `app.kubernetes.io/instance=${release}` })).items;
    const refreshBackend = () =>
      writeStatus(cluster.kc, { ...CACHE_BACKENDS, namespace: WORKLOAD_NAMESPACE, name: 'chat' }, healthyBackendStatus(REMOTE_ENDPOINT));
    /** kubectl (built here) against the cluster, as an operator runs it; its stdout. */
    const kubectl = (args: readonly string[]): string =>
      execFileSync(nodeBinaries().kubectl, [...args, '--kubeconfig', cluster.state.controlPlane.kubeconfigPath], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const log = (what: string, s: ReleaseStatus) =>
      console.info(`[flux ${what}] ${(s.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.reason ?? ''}`).join('; ')}`);
    const conditionOf = (s: ReleaseStatus, type: string) => releases().condition(s, type);
    const eventCount = async (release: string, reason: string, text = ''): Promise<number> =>
      (await releases().events(release))
        .filter((e) => e.reason === reason && (e.message ?? '').includes(text))
        .reduce((n, e) => n + (e.count ?? 1), 0);

    /**
     * Where a Flux user finds the doctor's reason for a failed test: Flux's message names the pod, and
     * that pod's termination message (`kubectl describe pod`) is the doctor's exit code and FAIL codes.
     */
    const expectReasonReachable = async (release: string, message: string | undefined): Promise<void> => {
      const named = FAILED_POD.exec(message ?? '');
      expect(named, `Flux's message names the failed pod: ${message ?? ''}`).not.toBeNull();
      const [, namespace = '', name = ''] = named ?? [];
      expect(namespace).toBe(INSTALL_NAMESPACE);
      expect(name).toBe(testPod(release));
      const terminated = (await pod(name))?.status?.containerStatuses?.[0]?.state?.terminated;
      expect(terminated?.exitCode).toBe(2);
      expect(terminated?.message).toMatch(/^inferencecache doctor: exit 2 \(--fail-on fail\); 1 FAIL/);
      expect(terminated?.message).toMatch(/^FAIL SV002 \(1\): /m);
      const described = kubectl(['describe', 'pod', name, '-n', INSTALL_NAMESPACE]);
      expect(described).toMatch(/Message:\s+inferencecache doctor: exit 2/);
      expect(described).toContain('FAIL SV002 (1)');
      const events = kubectl(['events', '--for', `HelmRelease/${release}`, '-n', INSTALL_NAMESPACE]);
      expect(events).toMatch(
        new RegExp(`Warning\\s+TestFailed\\s+HelmRelease/${release}\\s.*Pod/${INSTALL_NAMESPACE}/${name} status: 'Failed'`),
      );
    };

    beforeAll(async () => {
      requireBundle();
      ensureImage();
      cluster = await acquireNode({ flux: true, log: (l) => console.info(`[node] ${l}`) });
      await deploySampleInstall(cluster.kc);
      await applyObjects(cluster.kc, [pullSecret(cluster.registry, INSTALL_NAMESPACE)]);
      await releases().applySource();
      const name = readmeFluxManifests(cluster.registry.host).source.metadata.name;
      await pollUntil(`OCIRepository ${name} Ready`, { timeoutMs: 180_000, intervalMs: 1_000 }, async () => {
        const source = (await custom().getNamespacedCustomObject({ ...OCI_REPOSITORIES, namespace: INSTALL_NAMESPACE, name })) as {
          status?: { conditions?: { type: string; status: string; message?: string }[] };
        };
        const ready = source.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'True' || `Ready=${ready?.status ?? '?'}: ${ready?.message ?? ''}`;
      });
    }, 900_000);
    afterAll(async () => {
      if (cluster !== undefined && !released) await releaseNode();
    }, 300_000);

    it("a. healthy: Ready=True TestSucceeded, TestSuccess=True, the test hook Succeeded in the history, the pod's log a report with SN004", async () => {
      await refreshBackend();
      await releases().create('doctor');
      const s = await releases().settled('doctor');
      log('a', s);
      expect(conditionOf(s, 'Ready')).toMatchObject({ status: 'True', reason: 'TestSucceeded' });
      expect(conditionOf(s, 'TestSuccess')).toMatchObject({ status: 'True', reason: 'TestSucceeded' });
      expect(conditionOf(s, 'Ready')?.message).toMatch(
        /^Helm test succeeded for release inference-cache-system\/doctor\.v1 .*: 1 test hook completed successfully$/,
      );
      expect(s.history?.[0]).toMatchObject({ version: 1, status: 'deployed', testHooks: { [testPod('doctor')]: { phase: 'Succeeded' } } });
      const ran = await pod(testPod('doctor'));
      expect(ran?.status?.phase).toBe('Succeeded');
      const report = reportIn(await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: testPod('doctor') }));
      assertReportSchema(report);
      expect(report.findings.find((f) => f.code === 'SN004')?.status).toBe('OK');
      expect(report.summary).toMatchObject({ exitCode: 0 });
    }, 600_000);

    it('d. a new chart version in the registry upgrades the release and runs the test once more; one doctor pod remains', async () => {
      const before = (await pod(testPod('doctor')))?.metadata?.uid;
      const [major = '0', minor = '0', patch = '0'] = PACKAGE.version.split(/[.+-]/);
      const next = `${major}.${minor}.${Number(patch) + 1}`;
      publishChart(cluster.registry, resolveBinaries().helm4, `${PROJECT_ROOT}/chart`, cluster.state.dir, next);
      await refreshBackend();
      await releases().refreshSource();
      const s = await releases().settled('doctor', (st) => (st.history?.[0]?.chartVersion ?? '').startsWith(`${next}+`));
      log('d', s);
      expect(conditionOf(s, 'Ready')).toMatchObject({ status: 'True', reason: 'TestSucceeded' });
      expect(s.history?.[0]).toMatchObject({ version: 2, action: 'upgrade', testHooks: { [testPod('doctor')]: { phase: 'Succeeded' } } });
      // Once for the new revision, and not again while nothing changes.
      await sleep(20_000);
      expect(await eventCount('doctor', 'TestSucceeded', 'doctor.v2 ')).toBe(1);
      const pods = await podsOf('doctor');
      expect(pods.map((p) => p.metadata?.name)).toEqual([testPod('doctor')]);
      expect(pods[0]?.metadata?.uid).not.toBe(before);
      expect(pods[0]?.status?.phase).toBe('Succeeded');
    }, 600_000);

    it('d. forcing a release (the annotations `flux reconcile helmrelease --force` writes) judges the install again: a new revision, tested once', async () => {
      const before = (await releases().status('doctor')).history?.[0]?.version ?? 0;
      const token = String(Date.now());
      await refreshBackend();
      kubectl([
        'annotate',
        '--field-manager=flux-client-side-apply',
        '--overwrite',
        'helmrelease/doctor',
        '-n',
        INSTALL_NAMESPACE,
        `reconcile.fluxcd.io/requestedAt=${token}`,
        `reconcile.fluxcd.io/forceAt=${token}`,
      ]);
      const s = await releases().settled('doctor', (st) => (st.history?.[0]?.version ?? 0) > before);
      log('d force', s);
      expect(conditionOf(s, 'Ready')).toMatchObject({ status: 'True', reason: 'TestSucceeded' });
      expect(s.history?.[0]).toMatchObject({ version: before + 1, testHooks: { [testPod('doctor')]: { phase: 'Succeeded' } } });
      expect(await eventCount('doctor', 'TestSucceeded', `doctor.v${before + 1} `)).toBe(1);
      expect((await podsOf('doctor')).map((p) => p.metadata?.name)).toEqual([testPod('doctor')]);
    }, 600_000);

    it("b. server NOT_SERVING on install: TestSuccess=False, Ready=False TestFailed, uninstalled between and after the attempts; the doctor's reason one command from Flux's message", async () => {
      await setServerHealth(cluster.kc, 'NOT_SERVING');
      try {
        await refreshBackend();
        await releases().create('broken', { install: { remediation: { retries: 1, remediateLastFailure: true } } });
        const s = await releases().settled('broken', (st) => conditionOf(st, 'Stalled')?.status === 'True');
        log('b install', s);
        expect(conditionOf(s, 'TestSuccess')).toMatchObject({ status: 'False', reason: 'TestFailed' });
        expect(conditionOf(s, 'Ready')).toMatchObject({ status: 'False', reason: 'TestFailed' });
        expect(conditionOf(s, 'Stalled')).toMatchObject({ status: 'True', reason: 'RetriesExceeded' });
        expect(conditionOf(s, 'Remediated')).toMatchObject({ status: 'True', reason: 'UninstallSucceeded' });
        expect(await eventCount('broken', 'InstallSucceeded')).toBe(2);
        expect(await eventCount('broken', 'TestFailed')).toBe(2);
        expect(await eventCount('broken', 'UninstallSucceeded')).toBe(2);
        expect(s.history?.[0]).toMatchObject({ action: 'uninstall-remediation', testHooks: { [testPod('broken')]: { phase: 'Failed' } } });
        const stored = await core().listNamespacedSecret({ namespace: INSTALL_NAMESPACE, labelSelector: 'owner=helm,name=broken' });
        expect(stored.items, 'no Helm release left').toEqual([]);
        // The test pod outlives the uninstall, so the reason is still there to read.
        await expectReasonReachable('broken', conditionOf(s, 'Ready')?.message);
      } finally {
        await setServerHealth(cluster.kc, 'SERVING');
        await releases().remove('broken');
      }
    }, 600_000);

    it('b. server NOT_SERVING on upgrade: the test fails and helm-controller rolls back to the tested revision', async () => {
      const before = (await releases().status('doctor')).history?.[0]?.version ?? 0;
      await setServerHealth(cluster.kc, 'NOT_SERVING');
      try {
        await refreshBackend();
        await releases().update('doctor', {
          upgrade: { remediation: { retries: 0, remediateLastFailure: true, strategy: 'rollback' } },
          values: { timeoutSeconds: 31 },
        });
        const s = await releases().settled('doctor', (st) => conditionOf(st, 'Remediated')?.status === 'True');
        log('b upgrade', s);
        expect(conditionOf(s, 'TestSuccess')).toMatchObject({ status: 'False', reason: 'TestFailed' });
        expect(conditionOf(s, 'Ready')).toMatchObject({ status: 'False', reason: 'RollbackSucceeded' });
        expect(conditionOf(s, 'Remediated')).toMatchObject({ status: 'True', reason: 'RollbackSucceeded' });
        expect(s.history?.[0]).toMatchObject({ version: before + 2, action: 'rollback', status: 'deployed' });
        expect(s.history?.[1]).toMatchObject({
          version: before + 1,
          status: 'superseded',
          testHooks: { [testPod('doctor')]: { phase: 'Failed' } },
        });
        expect(await eventCount('doctor', 'RollbackSucceeded')).toBe(1);
        await expectReasonReachable('doctor', conditionOf(s, 'TestSuccess')?.message);
      } finally {
        await setServerHealth(cluster.kc, 'SERVING');
      }
    }, 600_000);

    it('c. test.ignoreFailures: Ready=True, no remediation, and the failure still visible', async () => {
      await setServerHealth(cluster.kc, 'NOT_SERVING');
      try {
        await refreshBackend();
        await releases().create('ignored', { test: { enable: true, ignoreFailures: true } });
        const s = await releases().settled('ignored', (st) => conditionOf(st, 'TestSuccess') !== undefined);
        log('c', s);
        expect(conditionOf(s, 'Ready')?.status).toBe('True');
        expect(conditionOf(s, 'TestSuccess')).toMatchObject({ status: 'False', reason: 'TestFailed' });
        expect(conditionOf(s, 'Stalled')).toBeUndefined();
        expect(conditionOf(s, 'Remediated')).toBeUndefined();
        expect(s.history?.[0]).toMatchObject({ version: 1, status: 'deployed', testHooks: { [testPod('ignored')]: { phase: 'Failed' } } });
        expect(await eventCount('ignored', 'UninstallSucceeded')).toBe(0);
        await expectReasonReachable('ignored', conditionOf(s, 'TestSuccess')?.message);
      } finally {
        await setServerHealth(cluster.kc, 'SERVING');
        await releases().remove('ignored');
      }
    }, 600_000);

    it('e. the post-install hook and the test: the -deploy pod waits for a late CacheBackend inside the install, the test starts after it ended', async () => {
      const name = 'gated';
      const ns = 'late-flux';
      await createNamespace(cluster.kc, ns);
      await createBackend(cluster.kc, ns, 'late', {});
      try {
        await refreshBackend();
        await releases().create(name, {
          timeout: '7m',
          values: { failOn: 'warn', hooks: { postInstallUpgrade: true }, wait: { afterDeploySeconds: 90 } },
        });
        const deployPod = `${testPod(name)}-deploy`;
        await pollUntil('the post-install pod running', { timeoutMs: 300_000, intervalMs: 250 }, async () => {
          const phase = (await pod(deployPod))?.status?.phase;
          return phase === 'Running' || `phase ${phase ?? 'none'}`;
        });
        await sleep(8_000 + Math.random() * 2_000);
        expect(await pod(testPod(name)), 'no test pod while the install waits for its hook').toBeUndefined();
        await writeStatus(cluster.kc, { ...CACHE_BACKENDS, namespace: ns, name: 'late' }, reconciledBackendStatus());
        await refreshBackend();
        const s = await releases().settled(name);
        log('e', s);
        expect(conditionOf(s, 'Ready')).toMatchObject({ status: 'True', reason: 'TestSucceeded' });
        expect(Object.keys(s.history?.[0]?.testHooks ?? {}), 'the -deploy hook is not a test').toEqual([testPod(name)]);
        const deployed = await pod(deployPod);
        const tested = await pod(testPod(name));
        expect(deployed?.status?.phase).toBe('Succeeded');
        expect(tested?.status?.phase).toBe('Succeeded');
        const hookEnded = deployed?.status?.containerStatuses?.[0]?.state?.terminated?.finishedAt;
        const testCreated = tested?.metadata?.creationTimestamp;
        console.info(`[flux e] -deploy pod finished ${String(hookEnded)}; test pod created ${String(testCreated)}`);
        expect(hookEnded).toBeDefined();
        expect(new Date(String(testCreated)).getTime()).toBeGreaterThanOrEqual(new Date(String(hookEnded)).getTime());
        const attempts = reportIn(await core().readNamespacedPodLog({ namespace: INSTALL_NAMESPACE, name: deployPod })).attempts ?? [];
        console.info(`[flux e] ${attempts.length} attempts: ${attempts.map((a) => `${a.elapsed} exit ${a.exitCode}`).join('; ')}`);
        expect(attempts.length).toBeGreaterThanOrEqual(2);
        expect(attempts[0]?.counted).toContain('CB001');
      } finally {
        await custom().deleteNamespacedCustomObject({ ...CACHE_BACKENDS, namespace: ns, name: 'late' });
        await deleteNamespace(cluster.kc, ns);
        await releases().remove(name);
      }
    }, 600_000);

    it("e. a failing post-install hook fails the install itself and the test never runs; a hook outliving spec.timeout fails it with Flux's timeout", async () => {
      await setServerHealth(cluster.kc, 'NOT_SERVING');
      try {
        await refreshBackend();
        await releases().create('hookfail', { values: { hooks: { postInstallUpgrade: true }, wait: { afterDeploySeconds: 0 } } });
        await releases().create('hookslow', {
          timeout: '20s',
          values: { hooks: { postInstallUpgrade: true }, wait: { afterDeploySeconds: 120 } },
        });
        for (const name of ['hookfail', 'hookslow']) {
          const s = await releases().settled(name, (st) => conditionOf(st, 'Released')?.status === 'False');
          log(`e ${name}`, s);
          console.info(`[flux e ${name}] ${conditionOf(s, 'Ready')?.message ?? ''}`);
          expect(conditionOf(s, 'Ready')).toMatchObject({ status: 'False', reason: 'InstallFailed' });
          expect(conditionOf(s, 'Released')).toMatchObject({ status: 'False', reason: 'InstallFailed' });
          expect(conditionOf(s, 'TestSuccess'), 'no test after a failed install').toBeUndefined();
          expect(await pod(testPod(name))).toBeUndefined();
          expect(conditionOf(s, 'Ready')?.message).toContain('failed post-install: ');
        }
        const failed = (await pod(`${testPod('hookfail')}-deploy`))?.status?.containerStatuses?.[0]?.state?.terminated;
        expect(failed?.message).toMatch(/^inferencecache doctor: exit 2 \(--fail-on fail\); 1 FAIL/);
        expect(conditionOf(await releases().status('hookfail'), 'Ready')?.message).toContain(
          `Pod/${INSTALL_NAMESPACE}/${testPod('hookfail')}-deploy status: 'Failed'`,
        );
        // Flux's deadline, said one of two ways (whichever wait it cut short), neither naming a finding.
        const slow = conditionOf(await releases().status('hookslow'), 'Ready')?.message;
        expect(slow).toMatch(
          /failed post-install: (.*would exceed context deadline|timeout waiting for: \[Pod\/\S+-deploy status: 'InProgress'\])/,
        );
        expect(slow).not.toContain('SV002');
        expect((await pod(`${testPod('hookslow')}-deploy`))?.status?.phase, 'still waiting when Flux gave up').toBe('Running');
      } finally {
        await setServerHealth(cluster.kc, 'SERVING');
        await releases().remove('hookfail');
        await releases().remove('hookslow');
      }
    }, 600_000);

    // The node outlives the suite (test/support/node-setup.ts takes it down at the end of the run and
    // fails the run if it leaves any process, mount, cgroup, network namespace, interface, iptables chain or ipset).
    it("source-controller and helm-controller are the node's, to be stopped with it; the suite leaves the node as it found it", async () => {
      const state = cluster.state;
      for (const name of ['flux-source-controller', 'flux-helm-controller']) expect(state.pids[name], name).toBeDefined();
      released = true;
      expect(await releaseNode((l) => console.info(`[node] ${l}`))).toEqual([]);
    }, 300_000);
  },
);
