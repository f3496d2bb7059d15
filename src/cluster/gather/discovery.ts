import type { KubeApi } from '../transport/kube-api.ts';
import { SERVER_DISCOVERY } from '../state/reads.ts';
import { objectRef } from '../encoding/wire.ts';
import { collectionPath, isNamespaceName, objectPath } from '../kinds/access.ts';

/** The Service of the cache-plane server and the namespace it is looked for first. */
export const SERVER_SERVICE = 'inference-cache-server';
export const SYSTEM_NAMESPACE = 'inference-cache-system';

/** The namespace holding the server Service, or why it could not be found. */
export type DiscoveryResult = { readonly ok: true; readonly namespace: string } | { readonly ok: false; readonly error: string };

/**
 * Finds the namespace of the `inference-cache-server` Service: first in `inference-cache-system`, then
 * anywhere (the first in list order). Only NotFound falls through to the cluster-wide search: a
 * Forbidden or a timeout is reported as it is. `--namespace` never narrows this search.
 */
export async function discoverServerNamespace(api: KubeApi, signal: AbortSignal): Promise<DiscoveryResult> {
  const direct = await api.get(objectPath(SERVER_DISCOVERY, SYSTEM_NAMESPACE, SERVER_SERVICE), signal);
  if (direct.ok) return { ok: true, namespace: SYSTEM_NAMESPACE };
  if (direct.status !== 404) {
    return { ok: false, error: `reading Service ${SYSTEM_NAMESPACE}/${SERVER_SERVICE} failed: ${direct.error}` };
  }
  const all = await api.list(
    collectionPath(SERVER_DISCOVERY, ''),
    (raw) => {
      const { name, namespace } = objectRef(raw);
      return { name, namespace };
    },
    signal,
    { fieldSelector: `metadata.name=${SERVER_SERVICE}` },
  );
  if (!all.ok) return { ok: false, error: `listing Services to find ${JSON.stringify(SERVER_SERVICE)} failed: ${all.error}` };
  const found = all.items.find((s) => s.name === SERVER_SERVICE);
  if (found === undefined) {
    return { ok: false, error: `no Service named ${JSON.stringify(SERVER_SERVICE)} exists in any namespace` };
  }
  // The namespace becomes part of the server's host name: only a namespace name may.
  if (!isNamespaceName(found.namespace))
    return {
      ok: false,
      error: `the Service ${JSON.stringify(SERVER_SERVICE)} was listed in ${JSON.stringify(found.namespace)}, which is not a namespace name`,
    };
  return { ok: true, namespace: found.namespace };
}
