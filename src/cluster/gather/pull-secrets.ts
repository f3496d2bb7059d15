import type { ObjectSource } from '../transport/kube-api.ts';
import { projectPullSecret, type PullSecretLookup } from '../kinds/secret.ts';
import { secretKey, type PullSecretRef } from '../state/pull-secret-refs.ts';
import { READS } from '../state/reads.ts';
import { isNamespaceName, isObjectName, objectPath } from '../kinds/access.ts';

/** How many pull secrets are read at once. */
export const SECRET_READ_CONCURRENCY = 8;

async function readOne(api: ObjectSource, ref: PullSecretRef, signal: AbortSignal): Promise<PullSecretLookup> {
  // A name no Secret can have names no Secret: it is not read (in a URL it could name another one).
  if (!isNamespaceName(ref.namespace) || !isObjectName(ref.name)) return { kind: 'not-found' };
  const res = await api.get(objectPath(READS.pullSecrets.access, ref.namespace, ref.name), signal);
  if (res.ok) return projectPullSecret(res.body);
  if (res.status === 404) return { kind: 'not-found' };
  return { kind: 'unknown', status: res.status, error: res.error };
}

/**
 * Reads each referenced pull secret by name, once, a few at a time (least privilege: a ClusterRole
 * can grant `get` without `list`, and nothing else is read). Only type and shape are kept. `refs` are
 * those of `pullSecretRefs`, at most `MAX_PULL_SECRETS_PER_OBJECT` from any one pod or
 * ServiceAccount, so the number of reads grows with the number of objects, never with what one of
 * them lists.
 */
export async function readPullSecrets(
  api: ObjectSource,
  refs: readonly PullSecretRef[],
  signal: AbortSignal,
): Promise<Map<string, PullSecretLookup>> {
  const results = new Map<string, PullSecretLookup>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < refs.length; i = next++) {
      const ref = refs[i] as PullSecretRef;
      results.set(secretKey(ref.namespace, ref.name), await readOne(api, ref, signal));
    }
  };
  await Promise.all(Array.from({ length: Math.min(SECRET_READ_CONCURRENCY, refs.length) }, worker));
  return new Map(refs.map((r) => [secretKey(r.namespace, r.name), results.get(secretKey(r.namespace, r.name)) as PullSecretLookup]));
}
