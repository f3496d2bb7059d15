// Image pullability against real pulls: the doctor image pushed to the node's registry (TLS with its
// own CA, which containerd trusts through its hosts folder; htpasswd), then engine pods pulling it with
// a pull secret whose password is wrong, a secret that is missing, one of the wrong type and a correct
// one. The kubelet's own status decides each case; the doctor's findings are compared with it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { createNamespace, installCrds } from '../../dev/cluster/manifests.ts';
import { createBackend } from '../../dev/cluster/objects.ts';
import { missingForNode, type NodeCluster } from '../../dev/cluster/node/node.ts';
import { acquireNode, releaseNode } from '../support/shared-node.ts';
import {
  chartsRepository,
  doctorChart,
  doctorRepository,
  dockerConfigJson,
  pullSecret,
  registryLoginArgs,
  v2Status,
} from '../../dev/cluster/node/registry.ts';
import { IMAGE_ARCHIVE, buildah, buildahOutput } from '../../dev/image/buildah.ts';
import { PACKAGE } from '../../dev/package.ts';
import { pollUntil } from '../../dev/poll.ts';
import { CHART_DIR, HELM_MUST_RUN, helmBinaries, runHelmAsync } from '../support/helm.ts';
import { CACHE_BACKENDS, INSTALL_NAMESPACE, writeStatus } from '../../dev/cluster/manifests.ts';
import { REMOTE_ENDPOINT, WORKLOAD_NAMESPACE, deploySampleInstall } from '../../dev/cluster/node/sample-install-pods.ts';
import { healthyBackendStatus } from '../../dev/cluster/sample-install-local.ts';
import { ensureImage } from '../support/image/build.ts';
import { runBundle } from '../support/bundle.ts';
import type { JsonReport } from '../support/json-report.ts';

const missing = missingForNode();
if (missing.length > 0 && HELM_MUST_RUN)
  throw new Error(`the real node must run under CI: missing ${missing.join(', ')} (.ci/run installs them)`);
const skipReason = missing.length > 0 ? ` (skipped: missing ${missing.join(', ')}; see docs/real-node.md)` : '';

const NAMESPACE = 'pulls';
const HELM4 = helmBinaries().find((h) => h.name === 'Helm 4') ?? { name: 'Helm 4', bin: '', missing: 'Helm 4 is not known' };
const ENGINE = { app: 'engine' };

describe.skipIf(missing.length > 0)(`pulls from the node's registry, judged by the doctor${skipReason}`, () => {
  let cluster: NodeCluster;
  let image = '';
  let digest = '';
  let report: JsonReport;
  const scratch = mkdtempSync(join(tmpdir(), 'icd-registry-'));
  const digestFile = join(scratch, 'digest');
  const core = () => cluster.kc.makeApiClient(CoreV1Api);
  const pod = (name: string): Promise<V1Pod> => core().readNamespacedPod({ namespace: NAMESPACE, name });
  const waiting = async (name: string) => (await pod(name)).status?.containerStatuses?.[0]?.state?.waiting;

  beforeAll(async () => {
    requireBundle();
    ensureImage();
    cluster = await acquireNode({ log: (l) => console.info(`[registry] ${l}`) });
    const { registry } = cluster;
    // The engine pods pull one tag, the chart's doctor pod the other by digest, so each pull is a real one.
    image = `${registry.host}/inferencecache-doctor:${PACKAGE.version}-pulls`;
    const id = buildahOutput(['pull', '--quiet', `oci-archive:${IMAGE_ARCHIVE}`]);
    const creds = `${registry.user}:${registry.password}`;
    const push = (ref: string) =>
      buildah(['push', '--quiet', '--cert-dir', registry.certDir, '--creds', creds, '--digestfile', digestFile, id, `docker://${ref}`]);
    push(image);
    push(`${registry.host}/inferencecache-doctor:${PACKAGE.version}`);
    digest = readFileSync(digestFile, 'utf8').trim();

    await installCrds(cluster.kc);
    await createNamespace(cluster.kc, NAMESPACE);
    await createBackend(cluster.kc, NAMESPACE, 'engines', { engineSelector: { matchLabels: ENGINE } });
    const secret = (name: string, type: string, data: Record<string, string>) =>
      core().createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name }, type, data } });
    const { host, user, password } = registry;
    await secret('right', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': dockerConfigJson(host, user, password) });
    await secret('wrong-password', 'kubernetes.io/dockerconfigjson', {
      '.dockerconfigjson': dockerConfigJson(host, user, 'not-the-password'),
    });
    await secret('opaque', 'Opaque', { '.dockerconfigjson': dockerConfigJson(host, user, password) });
    for (const [name, pullSecret] of [
      ['with-right', 'right'],
      ['with-wrong-password', 'wrong-password'],
      ['with-missing', 'absent'],
      ['with-opaque', 'opaque'],
    ] as const) {
      await core().createNamespacedPod({
        namespace: NAMESPACE,
        body: {
          metadata: { name, labels: ENGINE },
          spec: {
            restartPolicy: 'Never',
            imagePullSecrets: [{ name: pullSecret }],
            containers: [{ name: 'engine', image, imagePullPolicy: 'Always', args: ['--version'] }],
          },
        },
      });
    }
    // The kubelet decides: each refused pull backs off, the right one runs to its end.
    await pollUntil('the kubelet has pulled or backed off for every pod', { timeoutMs: 120_000, intervalMs: 1_000 }, async () => {
      const refused = await Promise.all(['with-wrong-password', 'with-missing', 'with-opaque'].map(waiting));
      const ran = (await pod('with-right')).status?.phase;
      return (
        (refused.every((w) => w?.reason === 'ImagePullBackOff') && (ran === 'Succeeded' || ran === 'Failed')) ||
        `refused ${refused.map((w) => w?.reason ?? '-').join(',')}, right ${ran ?? '-'}`
      );
    });
    const run = await runBundle(
      ['doctor', '--kubeconfig', cluster.state.controlPlane.kubeconfigPath, '-n', NAMESPACE, '--config-only', '-o', 'json'],
      {
        env: { PATH: process.env['PATH'] ?? '' },
      },
    );
    report = JSON.parse(run.stdout) as JsonReport;
  }, 900_000);

  afterAll(async () => {
    rmSync(scratch, { recursive: true, force: true });
    if (cluster === undefined) return;
    // The node outlives the suite (test/support/node-setup.ts takes it down at the end of the run and
    // fails the run if it leaves anything in the machine); the suite leaves it as it found it.
    expect(await releaseNode((l) => console.info(`[registry] ${l}`))).toEqual([]);
  }, 300_000);

  it('the registry asks for credentials, over TLS from its own CA, and accepts the right ones', async () => {
    const { registry } = cluster;
    expect(await v2Status(registry)).toBe(401);
    expect(await v2Status(registry, `${registry.user}:not-the-password`)).toBe(401);
    expect(await v2Status(registry, `${registry.user}:${registry.password}`)).toBe(200);
    // containerd trusts the CA through its hosts folder, not by skipping verification.
    expect(execFileSync('cat', [`${registry.hostsDir}/${registry.host}/hosts.toml`], { encoding: 'utf8' })).toContain(
      `ca = "${registry.caFile}"`,
    );
  });

  it('a correct pull secret: the kubelet pulls the image and the pod runs to its end; the doctor finds nothing about its pull', async () => {
    const right = await pod('with-right');
    expect(right.status?.containerStatuses?.[0]?.imageID).toMatch(/sha256:/);
    const pulls = report.findings.filter((f) => f.check === 'ImagePullability');
    expect(pulls.filter((f) => f.resource === 'pod/pulls/with-right' || f.resource === 'secret/pulls/right')).toEqual([]);
    expect(pulls.filter((f) => f.code === 'IP004').map((f) => f.resource)).toEqual([
      'pod/pulls/with-missing',
      'pod/pulls/with-opaque',
      'pod/pulls/with-wrong-password',
    ]);
  });

  it.each([
    ['with-wrong-password', 'wrong-password', 'IP006'],
    ['with-missing', 'absent', 'IP001'],
    ['with-opaque', 'opaque', 'IP002'],
  ])(
    '%s: the kubelet backs off, and the doctor names the pod, the image with its registry, and the secret (%s, %s)',
    async (name, secret, secretCode) => {
      const kubelet = await waiting(name);
      expect(kubelet?.reason).toBe('ImagePullBackOff');
      const ip004 = report.findings.find((f) => f.code === 'IP004' && f.resource === `pod/pulls/${name}`);
      // One finding names the pod (its resource), the image and its registry, and the secret pulled with.
      expect(ip004?.message).toContain(`(image "${image}" from registry "${cluster.registry.host}") is waiting in ImagePullBackOff`);
      expect(ip004?.message).toMatch(new RegExp(`the kubelet pulls with the pod's image pull secret "${secret}"$`));
      expect(ip004?.message).toContain(JSON.stringify(kubelet?.message ?? '').slice(1, 40));
      expect(report.findings.find((f) => f.resource === `secret/pulls/${secret}`)?.code).toBe(secretCode);
    },
  );

  describe.skipIf(HELM4.missing !== '' && !HELM_MUST_RUN)(
    'the chart from the registry (oci://), its image pinned by digest and pulled with a pull secret',
    () => {
      const helm = (args: readonly string[]) => runHelmAsync(HELM4, args, 600_000);
      const onCluster = () => ['--kubeconfig', cluster.state.controlPlane.kubeconfigPath, '--namespace', INSTALL_NAMESPACE];
      let tested: { code: number | null; stdout: string; stderr: string };

      beforeAll(async () => {
        const { registry } = cluster;
        await deploySampleInstall(cluster.kc);
        const packaged = await helm(['package', CHART_DIR, '--destination', scratch]);
        expect(packaged.code, packaged.stderr).toBe(0);
        const login = await helm(registryLoginArgs(registry));
        expect(login.code, login.stderr).toBe(0);
        const pushed = await helm([
          'push',
          join(scratch, `inferencecache-doctor-${PACKAGE.version}.tgz`),
          chartsRepository(registry),
          '--ca-file',
          registry.caFile,
        ]);
        expect(pushed.code, pushed.stderr).toBe(0);
        await core().createNamespacedSecret({ namespace: INSTALL_NAMESPACE, body: pullSecret(registry, INSTALL_NAMESPACE) });
        const installed = await helm([
          'install',
          'doctor',
          doctorChart(registry),
          '--version',
          PACKAGE.version,
          '--ca-file',
          registry.caFile,
          ...onCluster(),
          '--set',
          `image.repository=${doctorRepository(registry)}`,
          '--set',
          `image.digest=${digest}`,
          '--set',
          'imagePullSecrets[0].name=registry-creds',
        ]);
        expect(installed.code, installed.stderr).toBe(0);
        await writeStatus(
          cluster.kc,
          { ...CACHE_BACKENDS, namespace: WORKLOAD_NAMESPACE, name: 'chat' },
          healthyBackendStatus(REMOTE_ENDPOINT),
        );
        tested = await helm(['test', 'doctor', '--logs', '--timeout', '5m', ...onCluster()]);
      }, 600_000);

      it('installs from oci:// and passes helm test, the doctor pod pulled from the registry by digest with the pull secret', async () => {
        expect(tested.code, `${tested.stdout}${tested.stderr}`).toBe(0);
        const doctor = await core().readNamespacedPod({ namespace: INSTALL_NAMESPACE, name: 'doctor-inferencecache-doctor' });
        expect(doctor.spec?.containers[0]?.image).toBe(`${cluster.registry.host}/inferencecache-doctor@${digest}`);
        expect(doctor.spec?.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
        expect(doctor.spec?.imagePullSecrets).toEqual([{ name: 'registry-creds' }]);
        expect(doctor.status?.containerStatuses?.[0]?.imageID).toContain(digest);
        expect(doctor.status?.phase).toBe('Succeeded');
      });
    },
  );
});
