// Image pullability against real pulls: the doctor image pushed to the node's registry (TLS with its
// own CA, which containerd trusts through its hosts folder; htpasswd), then engine pods pulling it with
// a pull secret whose password is wrong, a secret that is missing, one of the wrong type and a correct
// one. The kubelet's own status decides each case; the doctor's findings are compared with it.
import { execFileSync } from 'node:child_process';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { createNamespace, installCrds } from '../../dev/cluster/manifests.ts';
import { createBackend } from '../../dev/cluster/objects.ts';
import { missingForNode, nodeLeftovers, startNodeCluster, type NodeCluster } from '../../dev/cluster/node/node.ts';
import { v2Status } from '../../dev/cluster/node/registry.ts';
import { IMAGE_ARCHIVE, buildah, buildahOutput } from '../../dev/image/buildah.ts';
import { PACKAGE } from '../../dev/package.ts';
import { pollUntil } from '../../dev/poll.ts';
import { HELM_MUST_RUN } from '../support/helm.ts';
import { ensureImage } from '../support/image/build.ts';
import { runBundle } from '../support/bundle.ts';
import type { JsonReport } from '../support/json-report.ts';

const missing = missingForNode();
if (missing.length > 0 && HELM_MUST_RUN)
  throw new Error(`the real node must run under CI: missing ${missing.join(', ')} (.ci/run installs them)`);
const skipReason = missing.length > 0 ? ` (skipped: missing ${missing.join(', ')}; see README "A real node")` : '';

const NAMESPACE = 'pulls';
const ENGINE = { app: 'engine' };

/** A `kubernetes.io/dockerconfigjson` document for `host` with `user`:`password`. */
function dockerConfig(host: string, user: string, password: string): string {
  const auth = Buffer.from(`${user}:${password}`).toString('base64');
  return Buffer.from(JSON.stringify({ auths: { [host]: { username: user, password, auth } } })).toString('base64');
}

describe.skipIf(missing.length > 0)(`pulls from the node's registry, judged by the doctor${skipReason}`, () => {
  let cluster: NodeCluster;
  let image = '';
  let report: JsonReport;
  const core = () => cluster.kc.makeApiClient(CoreV1Api);
  const pod = (name: string): Promise<V1Pod> => core().readNamespacedPod({ namespace: NAMESPACE, name });
  const waiting = async (name: string) => (await pod(name)).status?.containerStatuses?.[0]?.state?.waiting;

  beforeAll(async () => {
    requireBundle();
    ensureImage();
    cluster = await startNodeCluster({ log: (l) => console.info(`[registry] ${l}`) });
    const { registry } = cluster;
    image = `${registry.host}/inferencecache-doctor:${PACKAGE.version}`;
    const id = buildahOutput(['pull', '--quiet', `oci-archive:${IMAGE_ARCHIVE}`]);
    buildah([
      'push',
      '--quiet',
      '--cert-dir',
      registry.certDir,
      '--creds',
      `${registry.user}:${registry.password}`,
      id,
      `docker://${image}`,
    ]);

    await installCrds(cluster.kc);
    await createNamespace(cluster.kc, NAMESPACE);
    await createBackend(cluster.kc, NAMESPACE, 'engines', { engineSelector: { matchLabels: ENGINE } });
    const secret = (name: string, type: string, data: Record<string, string>) =>
      core().createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name }, type, data } });
    const { host, user, password } = registry;
    await secret('right', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': dockerConfig(host, user, password) });
    await secret('wrong-password', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': dockerConfig(host, user, 'not-the-password') });
    await secret('opaque', 'Opaque', { '.dockerconfigjson': dockerConfig(host, user, password) });
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
    if (cluster === undefined) return;
    const state = cluster.state;
    await cluster.stop();
    expect(nodeLeftovers(state)).toEqual([]);
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
    ['with-wrong-password', 'secret/pulls/wrong-password', 'IP006'],
    ['with-missing', 'secret/pulls/absent', 'IP001'],
    ['with-opaque', 'secret/pulls/opaque', 'IP002'],
  ])(
    '%s: the kubelet backs off, and the doctor names the pod, the image with its registry, and the secret (%s, %s)',
    async (name, secret, secretCode) => {
      const kubelet = await waiting(name);
      expect(kubelet?.reason).toBe('ImagePullBackOff');
      const ip004 = report.findings.find((f) => f.code === 'IP004' && f.resource === `pod/pulls/${name}`);
      expect(ip004?.message).toContain(`(image "${image}") is waiting in ImagePullBackOff`);
      expect(ip004?.message).toContain(JSON.stringify(kubelet?.message ?? '').slice(1, 40));
      expect(report.findings.find((f) => f.resource === secret)?.code).toBe(secretCode);
    },
  );
});
