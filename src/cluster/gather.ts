import type { KubeApi, ListResult } from './api.ts';
import {
  projectCacheBackend,
  projectCachePolicy,
  projectCacheTenant,
  projectEvent,
  projectPod,
} from './project.ts';
import { READS, collectionPath, type DeclaredRead } from './reads.ts';
import type { ClusterState, NamespaceLookup, Read } from './state.ts';

function notServed<T>(read: DeclaredRead, result: ListResult<T>): Read<T> {
  if (result.ok || !('status' in result) || result.status !== 404 || read.group === '') return result;
  return { ok: false, error: `the API server does not serve ${read.resource}.${read.group}/${read.version} (is the CRD installed?): ${result.error}` };
}

async function listOf<T>(api: KubeApi, read: DeclaredRead, namespace: string, project: (raw: unknown) => T, signal: AbortSignal): Promise<Read<T>> {
  return notServed(read, await api.list(collectionPath(read, namespace), project, signal));
}

async function lookupNamespace(api: KubeApi, namespace: string, signal: AbortSignal): Promise<NamespaceLookup> {
  const res = await api.get(`${collectionPath(READS.namespaces, '')}/${encodeURIComponent(namespace)}`, signal);
  if (res.ok) return { kind: 'found' };
  if (res.status === 404) return { kind: 'not-found' };
  return { kind: 'unknown', error: res.error };
}

/**
 * The one gathering pass: each collection the checks need is listed once, all in parallel, page by
 * page. A failed read is recorded in the state, never thrown; the check that needs it reports it.
 */
export async function gatherClusterState(api: KubeApi, namespace: string, signal: AbortSignal): Promise<ClusterState> {
  const [cacheBackends, pods, events, cacheTenants, cachePolicies, ns] = await Promise.all([
    listOf(api, READS.cacheBackends, namespace, projectCacheBackend, signal),
    listOf(api, READS.pods, namespace, projectPod, signal),
    listOf(api, READS.events, namespace, projectEvent, signal),
    listOf(api, READS.cacheTenants, namespace, projectCacheTenant, signal),
    listOf(api, READS.cachePolicies, namespace, projectCachePolicy, signal),
    namespace === '' ? undefined : lookupNamespace(api, namespace, signal),
  ]);
  return { cacheBackends, pods, events, cacheTenants, cachePolicies, ...(ns === undefined ? {} : { namespace: ns }) };
}
