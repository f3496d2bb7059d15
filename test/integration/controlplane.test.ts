// Smoke test of the local control plane (dev/cluster/controlplane.ts). Skipped when the binaries are not
// built (run hack/build-tools.sh); fails under CI=true in that case (see global-setup.ts).
import * as fs from 'node:fs';
import { ApiException, AuthenticationV1Api, CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { readPinnedVersions } from '../../dev/cluster/controlplane.ts';

const kubeconfig = inject('kubeconfig');
const AUDIENCE = 'inferencecache.io/controller';

describe.skipIf(!kubeconfig)(`local control plane ${kubeconfig ? '' : `(skipped: ${inject('controlPlaneSkipReason')})`}`, () => {
  let core: CoreV1Api;
  let authn: AuthenticationV1Api;
  let kc: KubeConfig;
  const ns = `cp-smoke-${Date.now().toString(36)}`;
  const sa = 'controller';

  beforeAll(async () => {
    kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    core = kc.makeApiClient(CoreV1Api);
    authn = kc.makeApiClient(AuthenticationV1Api);
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: sa } } });
  });

  it('serves /version of the pinned release (the current one, or the oldest the chart admits)', async () => {
    const v = await kc.makeApiClient(VersionApi).getCode();
    const pinned = readPinnedVersions();
    expect([pinned['KUBERNETES_VERSION'], pinned['KUBERNETES_OLDEST_VERSION']]).toContain(v.gitVersion);
    expect(v.gitVersion).toBe(inject('kubernetesVersion'));
    expect(v.minor).toBe(/^v1\.(\d+)\./.exec(inject('kubernetesVersion'))?.[1]);
  });

  it('issues audience-bound ServiceAccount tokens and reviews them', async () => {
    const tr = await core.createNamespacedServiceAccountToken({
      name: sa,
      namespace: ns,
      body: { spec: { audiences: [AUDIENCE], expirationSeconds: 600 } },
    });
    const token = tr.status?.token;
    expect(token).toBeTruthy();

    const ok = await authn.createTokenReview({ body: { spec: { token: token!, audiences: [AUDIENCE] } } });
    expect(ok.status?.authenticated).toBe(true);
    expect(ok.status?.user?.username).toBe(`system:serviceaccount:${ns}:${sa}`);
    expect(ok.status?.audiences).toEqual([AUDIENCE]);

    const wrong = await authn.createTokenReview({
      body: { spec: { token: token!, audiences: ['https://kubernetes.default.svc'] } },
    });
    expect(wrong.status?.authenticated).not.toBe(true);
  });

  it('enforces Pod Security admission (restricted)', async () => {
    const restricted = `${ns}-restricted`;
    await core.createNamespace({
      body: { metadata: { name: restricted, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
    });
    // without kube-controller-manager nothing creates the `default` ServiceAccount, which ServiceAccount
    // admission requires before PodSecurity gets to see the pod
    await core.createNamespacedServiceAccount({ namespace: restricted, body: { metadata: { name: 'default' } } }).catch((e: unknown) => {
      if (!(e instanceof ApiException && e.code === 409)) throw e;
    });
    const err = await core
      .createNamespacedPod({
        namespace: restricted,
        body: { metadata: { name: 'plain' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<unknown>).code).toBe(403);
    const body = (err as ApiException<unknown>).body;
    const status = (typeof body === 'string' ? JSON.parse(body) : body) as { message?: string };
    expect(status.message).toMatch(/violates PodSecurity "restricted:/);
  });

  it('writes an audit log', () => {
    const audit = fs.readFileSync(inject('auditLogPath'), 'utf8');
    expect(audit).toContain('"level":"Metadata"');
    expect(audit).toContain(`"namespace":"${ns}"`);
  });
});
