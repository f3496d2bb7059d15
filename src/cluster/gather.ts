import type { KubeApi, ListResult } from './api.ts';
import {
  projectCacheBackend,
  projectCachePolicy,
  projectCacheTenant,
  projectEvent,
  projectPod,
} from './project.ts';
import { projectNetworkPolicy } from './project-network-policy.ts';
import { projectNode } from './project-node.ts';
import { projectServiceAccount } from './project-pull-secret.ts';
import { pullSecretRefs } from './pull-secret-refs.ts';
import { readPullSecrets } from './pull-secrets.ts';
import { READS, collectionPath, type DeclaredRead } from './reads.ts';
import type { CacheBackend, ClusterState, NamespaceLookup, Pod, PullSecretLookup, Read, ServiceAccount } from './state.ts';
import { obj, stringMap } from './wire.ts';

function notServed<T>(read: DeclaredRead, result: ListResult<T>): Read<T> {
  if (result.ok || !('status' in result) || result.status !== 404 || read.group === '') return result;
  return { ok: false, error: `the API server does not serve ${read.resource}.${read.group}/${read.version} (is the CRD installed?): ${result.error}` };
}

async function listOf<T>(api: KubeApi, read: DeclaredRead, namespace: string, project: (raw: unknown) => T, signal: AbortSignal): Promise<Read<T>> {
  return notServed(read, await api.list(collectionPath(read, namespace), project, signal));
}

async function lookupNamespace(api: KubeApi, namespace: string, signal: AbortSignal): Promise<NamespaceLookup> {
  const res = await api.get(`${collectionPath(READS.namespaces, '')}/${encodeURIComponent(namespace)}`, signal);
  if (res.ok) return { kind: 'found', labels: stringMap(obj(obj(res.body)?.['metadata'])?.['labels']) };
  if (res.status === 404) return { kind: 'not-found' };
  return { kind: 'unknown', error: res.error };
}

/** What a run reads beyond the collections every run lists. */
export interface GatherPlan {
  /** List NetworkPolicies (only worth it when the server probes run). */
  readonly networkPolicies?: boolean;
  /** The doctor's own namespace, whose labels NetworkPolicy namespace selectors are matched against. */
  readonly podNamespace?: string;
}

/**
 * Reads the pull secrets the install names, by name, once the lists that name them have arrived. A
 * failed pod list names nothing; a failed ServiceAccount or CacheBackend list narrows the names to
 * what the rest still shows.
 */
async function pullSecretsOf(
  api: KubeApi,
  reads: Promise<[Read<Pod>, Read<ServiceAccount>, Read<CacheBackend>]>,
  signal: AbortSignal,
): Promise<Map<string, PullSecretLookup>> {
  const [pods, serviceAccounts, backends] = await reads;
  if (!pods.ok) return new Map();
  const refs = pullSecretRefs(pods.items, backends.ok ? backends.items : [], serviceAccounts.ok ? serviceAccounts.items : []);
  return readPullSecrets(api, refs, signal);
}

/**
 * The one gathering pass: each collection the checks need is listed once, all in parallel, page by
 * page; the only reads of single objects are the namespaces named by `--namespace` and the doctor's
 * own (one GET for both when they are the same) and the pull secrets the install names, each once,
 * which start as soon as the pods, ServiceAccounts and CacheBackends have arrived. A failed read is
 * recorded in the state, never thrown; the check that needs it reports it.
 */
export async function gatherClusterState(api: KubeApi, namespace: string, signal: AbortSignal, plan: GatherPlan = {}): Promise<ClusterState> {
  const namespaceLookups = new Map<string, Promise<NamespaceLookup>>();
  const lookup = (name: string): Promise<NamespaceLookup> => {
    const pending = namespaceLookups.get(name) ?? lookupNamespace(api, name, signal);
    namespaceLookups.set(name, pending);
    return pending;
  };
  const backendsRead = listOf(api, READS.cacheBackends, namespace, projectCacheBackend, signal);
  const podsRead = listOf(api, READS.pods, namespace, projectPod, signal);
  const accountsRead = listOf(api, READS.serviceAccounts, namespace, projectServiceAccount, signal);
  const podNamespace = plan.podNamespace;
  const [cacheBackends, pods, events, cacheTenants, cachePolicies, ns, nodes, serviceAccounts, pullSecrets, networkPolicies, own] = await Promise.all([
    backendsRead,
    podsRead,
    listOf(api, READS.events, namespace, projectEvent, signal),
    listOf(api, READS.cacheTenants, namespace, projectCacheTenant, signal),
    listOf(api, READS.cachePolicies, namespace, projectCachePolicy, signal),
    namespace === '' ? undefined : lookup(namespace),
    listOf(api, READS.nodes, '', projectNode, signal),
    accountsRead,
    pullSecretsOf(api, Promise.all([podsRead, accountsRead, backendsRead]), signal),
    plan.networkPolicies === true ? listOf(api, READS.networkPolicies, namespace, projectNetworkPolicy, signal) : undefined,
    podNamespace === undefined || podNamespace === '' ? undefined : lookup(podNamespace),
  ]);
  return {
    cacheBackends,
    pods,
    events,
    cacheTenants,
    cachePolicies,
    ...(ns === undefined ? {} : { namespace: ns }),
    nodes,
    serviceAccounts,
    pullSecrets,
    ...(networkPolicies === undefined ? {} : { networkPolicies }),
    ...(own === undefined ? {} : { podNamespace: own }),
  };
}
