// `helm test` end to end, the way an operator uses it, on Helm 3 and on Helm 4: the chart is installed
// next to the sample install on a control plane with kube-controller-manager; the kubelet stand-in runs
// the hook pod's container (the bundle) with the tokens its volumes ask for and resolves the server's
// Service name to the reference server; Helm reads the pod's phase and its log through the API server.
import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../support/bundle.ts';
import { ago, condition, createBackend, type JsonReport } from '../support/cluster-objects.ts';
import { missingBinaries, resolveBinaries } from '../support/controlplane/controlplane.ts';
import { CACHE_BACKENDS, INSTALL_NAMESPACE, createNamespace, writeStatus } from '../support/fixtures.ts';
import { startFullCluster, type FullCluster } from '../support/full-cluster.ts';
import { CHART_DIR, HELM_MUST_RUN, helmBinaries, reportIn, runHelmAsync } from '../support/helm.ts';
import type { Faults } from '../support/reference-server/server.ts';

const HELMS = helmBinaries().map((helm) => ({ helm, label: helm.name, short: helm.name === 'Helm 3' ? 'h3' : 'h4' }));
const missing = [
  ...missingBinaries(resolveBinaries(), true),
  ...HELMS.filter(({ helm }) => helm.missing !== '').map(({ helm }) => helm.missing),
];
const skip = missing.length > 0 && !HELM_MUST_RUN;
const skipReason = skip ? ` (skipped: missing ${missing.join(', ')}; run hack/build-controlplane.sh)` : '';
/** Labels of the controller's pods, which the chart copies onto the doctor pod by default. */
const CONTROLLER_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'controller' };

/** One helm command as an operator sees it: exit code, stdout then stderr, and how long it took. */
interface HelmRun {
  readonly code: number | null;
  readonly output: string;
  readonly ms: number;
}

const codes = (report: JsonReport) => report.findings.map((f) => f.code);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe.skipIf(skip)(`helm test end to end${skipReason}`, () => {
  let cluster: FullCluster;
  const core = () => cluster.kc.makeApiClient(CoreV1Api);
  const pod = (name: string): Promise<V1Pod> => core().readNamespacedPod({ namespace: INSTALL_NAMESPACE, name });
  /** Runs with server faults switched on, and always switches them off again. */
  const withFaults = async <T>(faults: Faults, body: () => Promise<T>): Promise<T> => {
    cluster.install.server.setFaults(faults);
    try {
      return await body();
    } finally {
      cluster.install.server.setFaults({});
    }
  };

  beforeAll(async () => {
    requireBundle();
    cluster = await startFullCluster();
    await core().createNamespacedService({
      namespace: INSTALL_NAMESPACE,
      body: {
        metadata: { name: 'inference-cache-webhook' },
        spec: { selector: CONTROLLER_LABELS, ports: [{ name: 'https', port: 443, targetPort: 9443 }] },
      },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  describe.each(HELMS)('$label', ({ helm: binary, label, short }) => {
    const release = `doctor-${short}`;
    const podName = `${release}-inferencecache-doctor`;
    /** The pod of the post-install/upgrade and PostSync hooks. */
    const deployPod = `${podName}-deploy`;
    const helm = async (args: string[]): Promise<HelmRun> => {
      const run = await runHelmAsync(binary, [
        ...args,
        '--kubeconfig',
        cluster.controlPlane.kubeconfigPath,
        '--namespace',
        INSTALL_NAMESPACE,
      ]);
      return { code: run.code, output: `${run.stdout}${run.stderr}`, ms: run.elapsedMs };
    };
    const upgrade = (values: string[] = []) =>
      helm(['upgrade', '--install', release, CHART_DIR, '--reset-values', ...values.flatMap((v) => ['--set', v])]);
    const helmTest = () => helm(['test', release, '--logs', '--timeout', '2m']);

    afterAll(async () => {
      await helm(['uninstall', release]);
    });

    it('healthy install: helm test --logs passes and prints SV003, SN004, PL002 and PB002', async () => {
      const installed = await upgrade();
      expect(installed.code, installed.output).toBe(0);
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      expect(tested.output).toMatch(/Phase:\s+Succeeded/);
      const report = reportIn(tested.output);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
      expect(report.findings.filter((f) => f.status !== 'OK')).toEqual([]);
      expect(report.summary.exitCode).toBe(0);
      console.info(`[${label}] helm install ${installed.ms} ms + helm test ${tested.ms} ms = ${installed.ms + tested.ms} ms`);
    });

    it('a second helm test replaces the first pod (before-hook-creation) and passes again', async () => {
      const first = (await pod(podName)).metadata?.uid;
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      const second = await pod(podName);
      expect(second.metadata?.uid).not.toBe(first);
      expect(second.status?.phase).toBe('Succeeded');
    });

    it('while the hook pod runs, the controller Service has no ready endpoint for it', async () => {
      const discovery = cluster.kc.makeApiClient(DiscoveryV1Api);
      const seen: { listed: boolean; ready?: boolean | undefined }[] = [];
      const previous = (await pod(podName).catch(() => undefined))?.metadata?.uid;
      await withFaults({ snapshot: { slowMs: 6_000 } }, async () => {
        const running = helmTest();
        for (let done = false; !done; await sleep(250)) {
          const current = await pod(podName).catch(() => undefined);
          if (current === undefined || current.metadata?.uid === previous) continue;
          if (current.status?.phase === 'Running' && current.status.podIP !== undefined) {
            const slices = await discovery.listNamespacedEndpointSlice({
              namespace: INSTALL_NAMESPACE,
              labelSelector: 'kubernetes.io/service-name=inference-cache-webhook',
            });
            const mine = slices.items.flatMap((s) => s.endpoints).filter((e) => e?.targetRef?.name === podName);
            seen.push(...(mine.length === 0 ? [{ listed: false }] : mine.map((e) => ({ listed: true, ready: e?.conditions?.ready }))));
          }
          done = current.status?.phase === 'Succeeded' || current.status?.phase === 'Failed';
        }
        expect((await running).code).toBe(0);
      });
      expect(seen.length).toBeGreaterThan(5);
      expect(seen.filter((s) => s.ready !== false && s.listed)).toEqual([]);
      expect(
        seen.some((s) => s.listed),
        'the EndpointSlice controller listed the running pod (not ready)',
      ).toBe(true);
      expect((await pod(podName)).status?.conditions?.find((c) => c.type === 'Ready')?.status).not.toBe('True');
    });

    it('broken install (NOT_SERVING, a stale backend): helm test fails, the logs and the pod status carry the codes', async () => {
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
      try {
        const tested = await withFaults({ health: 'NOT_SERVING' }, helmTest);
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
        await cluster.kc.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({ ...CACHE_BACKENDS, namespace: ns, name: 'stale' });
      }
    });

    it("a wrong token audience in values → SN005 from the pod's projected token: a WARN, which fails only with failOn=warn", async () => {
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
    });

    it('the dedicated identity → SN005 (403: /snapshot admits only the controller), as documented, and helm test passes', async () => {
      expect((await upgrade(['identity=dedicated'])).code).toBe(0);
      const tested = await helmTest();
      expect(tested.code, tested.output).toBe(0);
      const report = reportIn(tested.output);
      expect(codes(report).slice(0, 4)).toEqual(['SV003', 'SN005', 'PL002', 'PB002']);
      expect(report.findings.find((f) => f.code === 'SN005')?.message).toContain('403');
      expect((await pod(podName)).spec?.serviceAccountName).not.toBe('inference-cache-controller-manager');
    });

    it('post-install mode: helm install fails when the doctor exits 2, and succeeds on a healthy install', async () => {
      await helm(['uninstall', release]);
      const values = ['hooks.postInstallUpgrade=true', 'hooks.helmTest=false', 'wait.afterDeploySeconds=0'];
      const failed = await withFaults({ health: 'NOT_SERVING' }, () => upgrade(values));
      expect(failed.code, failed.output).not.toBe(0);
      expect(failed.output).toMatch(/post-install|failed/i);
      expect((await pod(deployPod)).status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(2);
      await helm(['uninstall', release]);
      const healthy = await upgrade(values);
      expect(healthy.code, healthy.output).toBe(0);
      expect((await pod(deployPod)).status?.phase).toBe('Succeeded');
    });

    it('post-install with a wait: helm install succeeds once the controller marks a backend Ready 8-10 s into the hook', async () => {
      await helm(['uninstall', release]);
      const ns = `late-${short}`;
      await createNamespace(cluster.kc, ns);
      await createBackend(cluster.kc, ns, 'late', {});
      try {
        const installing = upgrade(['hooks.postInstallUpgrade=true', 'hooks.helmTest=false', 'failOn=warn', 'wait.afterDeploySeconds=90']);
        for (;;) {
          const hook = await pod(deployPod).catch(() => undefined);
          if (hook?.status?.phase === 'Running') break;
          await sleep(250);
        }
        await sleep(8_000 + Math.random() * 2_000);
        await writeStatus(
          cluster.kc,
          { ...CACHE_BACKENDS, namespace: ns, name: 'late' },
          {
            conditions: [condition('Ready', 'True')],
            matchedEnginePods: 1,
            firstKVEventObservedAt: ago(3_600_000),
            indexParticipation: { prefixCount: 4, lastEventAt: ago(5_000) },
          },
        );
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
    });
  });
});
