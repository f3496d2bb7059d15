// Identities for integration tests: a ServiceAccount with a ClusterRole made from the API accesses the
// checks declare (src/checks/registry.ts), minus whatever a test wants to deny, and a kubeconfig
// holding a TokenRequest token for it. Runs under such an identity show up in the audit log under its
// own name.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthenticationV1Api, AuthorizationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { apiAccesses } from '../../src/checks/registry.ts';

import { pollUntil } from '../poll.ts';
import { applyObjects, type KubeObject } from './manifests.ts';
import type { ApiAccess } from '../../src/cluster/kinds/access.ts';

/** A doctor identity: who it is, and a kubeconfig that authenticates as it. */
export interface Identity {
  readonly username: string;
  readonly kubeconfig: string;
  readonly token: string;
}

/** A resource the doctor reads, by its plural name (`pods`, `namespaces`, `cachetenants`, …). */
export type ResourceName = string;

/** The accesses the checks declare, one per resource, except the resources in `deny`. */
function accessesExcept(deny: readonly ResourceName[]): ApiAccess[] {
  const byResource = new Map<string, ApiAccess>();
  for (const access of apiAccesses()) {
    if (deny.includes(access.resource)) continue;
    const key = `${access.group}/${access.resource}`;
    const seen = byResource.get(key);
    byResource.set(key, seen === undefined ? access : { ...seen, verbs: [...new Set([...seen.verbs, ...access.verbs])] });
  }
  return [...byResource.values()];
}

/** The ClusterRole rules granting the doctor's reads, except those of the resources in `deny`. */
export function rulesFor(deny: readonly ResourceName[] = []): { apiGroups: string[]; resources: string[]; verbs: string[] }[] {
  return accessesExcept(deny).map((a) => ({ apiGroups: [a.group], resources: [a.resource], verbs: [...a.verbs] }));
}

/** Writes a kubeconfig for `server` that trusts `caFile` and presents `token`. */
export function kubeconfigWithToken(server: string, caFile: string, token: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'icd-id-')), 'kubeconfig');
  const ca = readFileSync(caFile).toString('base64');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: doctor',
      'clusters:',
      `- name: test\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${ca}`,
      'users:',
      `- name: doctor\n  user:\n    token: ${token}`,
      'contexts:',
      '- name: doctor\n  context:\n    cluster: test\n    user: doctor',
      '',
    ].join('\n'),
  );
  return file;
}

/** Mints a token for a ServiceAccount with TokenRequest. */
export async function requestToken(
  kc: KubeConfig,
  namespace: string,
  name: string,
  audiences?: string[],
  expirationSeconds = 3600,
): Promise<string> {
  const res = await kc.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    namespace,
    name,
    body: { spec: { expirationSeconds, ...(audiences === undefined ? {} : { audiences }) } },
  });
  return res.status?.token ?? '';
}

/**
 * Creates ServiceAccount `name` in `namespace` bound to a ClusterRole with the doctor's reads less
 * `deny`, and returns a kubeconfig that authenticates as it.
 */
export async function doctorIdentity(
  kc: KubeConfig,
  opts: { namespace: string; name: string; server: string; caFile: string; deny?: readonly ResourceName[] },
): Promise<Identity> {
  const roleName = `icd-${opts.namespace}-${opts.name}`;
  const objects: KubeObject[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: opts.name, namespace: opts.namespace } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: roleName }, rules: rulesFor(opts.deny) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: roleName },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name: opts.name, namespace: opts.namespace }],
    },
  ];
  await applyObjects(kc, objects);
  const token = await requestToken(kc, opts.namespace, opts.name);
  await waitForAccess(kc, token, opts.deny ?? []);
  return {
    username: `system:serviceaccount:${opts.namespace}:${opts.name}`,
    kubeconfig: kubeconfigWithToken(opts.server, opts.caFile, token),
    token,
  };
}

/** RBAC takes effect through an informer: wait until the authorizer allows one of the granted reads. */
async function waitForAccess(kc: KubeConfig, token: string, deny: readonly ResourceName[]): Promise<void> {
  const read = accessesExcept(deny)[0];
  if (read === undefined) return;
  const review = await kc.makeApiClient(AuthenticationV1Api).createTokenReview({ body: { spec: { token } } });
  const authz = kc.makeApiClient(AuthorizationV1Api);
  await pollUntil(`RBAC for ${read.resource} to take effect`, { timeoutMs: 10_000, intervalMs: 100 }, async () => {
    const sar = await authz.createSubjectAccessReview({
      body: {
        spec: {
          user: review.status?.user?.username ?? '',
          groups: review.status?.user?.groups ?? [],
          resourceAttributes: { group: read.group, resource: read.resource, verb: read.verbs[0] ?? 'get' },
        },
      },
    });
    return sar.status?.allowed === true || 'not allowed yet';
  });
}
