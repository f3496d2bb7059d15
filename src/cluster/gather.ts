import type { KubeApi, ListResult } from './api.ts';
import { projectCacheBackend, projectCachePolicy, projectCacheTenant, projectEvent, projectNamespace, projectPod } from './project.ts';
import { projectNetworkPolicy } from './project-network-policy.ts';
import { projectNode } from './project-node.ts';
import { projectServiceAccount } from './project-pull-secret.ts';
import { pullSecretRefs } from './pull-secret-refs.ts';
import { readPullSecrets } from './pull-secrets.ts';
import { READS, collectionPath, isNamespaceName, objectPath, type ReadSpec } from './reads.ts';
import { labelledRole, selectorIndex } from './pod-index.ts';
import type { CacheBackend, ClusterState, ItemOf, ListName, NamespaceLookup, Pod, PullSecretLookup, Read, ReadName } from './state.ts';
import { obj, stringMap, suppressAnnotation } from './wire.ts';

/** The pod the doctor runs in, which is never part of what it judges. */
export interface PodRef {
  readonly namespace: string;
  readonly name: string;
}

/** What one run reads: derived from the checks it runs (`checks/registry.ts`), never chosen by hand. */
export interface GatherPlan {
  readonly reads: ReadonlySet<ReadName>;
  /** The `--namespace` scope of every namespaced list; empty means all namespaces. */
  readonly namespace: string;
  /** The doctor's own pod: its namespace is looked up for `ownNamespace`, and the pod is left out of `pods`. */
  readonly self?: { readonly namespace: string; readonly name?: string | undefined };
}

/** How each list read turns an API object into the record the checks see. */
const PROJECTIONS: { readonly [K in ListName]: (raw: unknown) => ItemOf<K> | undefined } = {
  cacheBackends: projectCacheBackend,
  pods: projectPod,
  events: projectEvent,
  cacheTenants: projectCacheTenant,
  cachePolicies: projectCachePolicy,
  nodes: projectNode,
  serviceAccounts: projectServiceAccount,
  networkPolicies: projectNetworkPolicy,
  namespaces: projectNamespace,
};

function notServed<T>(name: ListName, result: ListResult<T>): Read<T> {
  const { access } = READS[name];
  if (result.ok) return result;
  if (!('status' in result) || result.status !== 404 || access.group === '') return { ok: false, error: result.error };
  return {
    ok: false,
    error: `the API server does not serve ${access.resource}.${access.group}/${access.version} (is the CRD installed?): ${result.error}`,
  };
}

/** Reads a list, keeping only the projected items `keep` accepts (all, without it). */
async function listOf<K extends ListName>(
  api: KubeApi,
  name: K,
  namespace: string,
  signal: AbortSignal,
  keep: (item: ItemOf<K>) => boolean = () => true,
): Promise<Read<ItemOf<K>>> {
  const project = PROJECTIONS[name] as (raw: unknown) => ItemOf<K> | undefined;
  const kept = (raw: unknown) => {
    const item = project(raw);
    return item !== undefined && keep(item) ? item : undefined;
  };
  const spec: ReadSpec = READS[name];
  const options = spec.metadataFollowedBy === undefined ? {} : { metadataFollowedBy: spec.metadataFollowedBy };
  return notServed(name, await api.list(collectionPath(spec.access, namespace), kept, signal, {}, options));
}

/** Whether a check can judge the pod: it is the install's own, or one of `backends` selects it. */
function judgeable(backends: readonly CacheBackend[]): (pod: Pod) => boolean {
  const selectors = selectorIndex(backends);
  return (pod) => labelledRole(pod) !== undefined || selectors.selectorsOf(pod).length > 0;
}

/**
 * The pods a check can judge (see `ClusterState.pods`). Which pods the CacheBackends select is known
 * only once they are read; from then on every other pod is dropped as it is read, and the pods that
 * arrived before are narrowed at the end.
 */
async function judgeablePods(
  api: KubeApi,
  namespace: string,
  backends: Promise<Read<CacheBackend>> | undefined,
  signal: AbortSignal,
): Promise<Read<Pod>> {
  let keep: ((pod: Pod) => boolean) | undefined;
  void backends?.then((read) => {
    if (read.ok) keep = judgeable(read.items);
  });
  const pods = await listOf(api, 'pods', namespace, signal, (pod) => keep === undefined || keep(pod));
  const known = await backends;
  if (!pods.ok || known === undefined || !known.ok) return pods;
  const narrow = judgeable(known.items);
  return { ok: true, items: pods.items.filter(narrow) };
}

async function lookupNamespace(api: KubeApi, namespace: string, signal: AbortSignal): Promise<NamespaceLookup> {
  if (!isNamespaceName(namespace))
    return { kind: 'unknown', error: `${JSON.stringify(namespace)} is not a namespace name, so it was not looked up` };
  const res = await api.get(objectPath(READS.scopeNamespace.access, '', namespace), signal);
  if (res.ok) {
    const suppress = suppressAnnotation(res.body);
    return {
      kind: 'found',
      labels: stringMap(obj(obj(res.body)?.['metadata'])?.['labels']),
      ...(suppress === undefined ? {} : { suppress }),
    };
  }
  if (res.status === 404) return { kind: 'not-found' };
  return { kind: 'unknown', error: res.error };
}

/** The `namespaces` read under `--namespace`: the one namespace, when it carries a suppression annotation. */
function scopedNamespaces(name: string, found: NamespaceLookup): Read<ItemOf<'namespaces'>> {
  if (found.kind === 'unknown') return { ok: false, error: found.error };
  return { ok: true, items: found.kind === 'found' && found.suppress !== undefined ? [{ name, suppress: found.suppress }] : [] };
}

/** The pods read, without the doctor's own pod. */
function withoutSelf(pods: Read<ItemOf<'pods'>>, self: GatherPlan['self']): Read<ItemOf<'pods'>> {
  const name = self?.name;
  if (!pods.ok || self === undefined || name === undefined || name === '') return pods;
  return { ok: true, items: pods.items.filter((p) => p.namespace !== self.namespace || p.name !== name) };
}

/** Every read the plan names, plus the reads those are derived from. */
function closure(reads: ReadonlySet<ReadName>): Set<ReadName> {
  const all = new Set(reads);
  for (const name of reads) for (const dependency of (READS[name] as { from?: readonly ReadName[] }).from ?? []) all.add(dependency);
  return all;
}

/**
 * The one gathering pass: each list the plan names is read once, all in parallel, page by page; the
 * only reads of single objects are the namespaces named by `--namespace` and the doctor's own (one GET
 * for both when they are the same) and the pull secrets the install names, each once, which start as
 * soon as the pods, ServiceAccounts and CacheBackends have arrived. A failed read is recorded in the
 * state, never thrown; the check that needs it reports it.
 */
export async function gatherClusterState(api: KubeApi, plan: GatherPlan, signal: AbortSignal): Promise<ClusterState> {
  const reads = closure(plan.reads);
  const lists = new Map<ListName, Promise<Read<unknown>>>();
  const list = <K extends ListName>(name: K): Promise<Read<ItemOf<K>>> => {
    const pending = lists.get(name) ?? listOf(api, name, plan.namespace, signal);
    lists.set(name, pending);
    return pending as Promise<Read<ItemOf<K>>>;
  };
  const namespaces = new Map<string, Promise<NamespaceLookup>>();
  const lookup = (name: string): Promise<NamespaceLookup> => {
    const pending = namespaces.get(name) ?? lookupNamespace(api, name, signal);
    namespaces.set(name, pending);
    return pending;
  };
  let ownPodLeftOut: Promise<Read<ItemOf<'pods'>>> | undefined;
  const pods = () =>
    (ownPodLeftOut ??= judgeablePods(api, plan.namespace, reads.has('cacheBackends') ? list('cacheBackends') : undefined, signal).then(
      (read) => withoutSelf(read, plan.self),
    ));
  const pending: Promise<readonly [ReadName, ClusterState[ReadName]]>[] = [];
  const add = (name: ReadName, value: Promise<ClusterState[ReadName]>) => pending.push(value.then((v) => [name, v] as const));
  for (const name of reads) {
    switch (name) {
      case 'pods':
        add(name, pods());
        break;
      case 'pullSecrets':
        add(name, pullSecretsOf(api, Promise.all([pods(), list('serviceAccounts'), list('cacheBackends')]), signal));
        break;
      case 'scopeNamespace':
        if (plan.namespace !== '') add(name, lookup(plan.namespace));
        break;
      case 'ownNamespace':
        if (plan.self !== undefined && plan.self.namespace !== '') add(name, lookup(plan.self.namespace));
        break;
      case 'namespaces':
        add(name, plan.namespace === '' ? list(name) : lookup(plan.namespace).then((found) => scopedNamespaces(plan.namespace, found)));
        break;
      default:
        add(name, list(name) as Promise<ClusterState[ReadName]>);
    }
  }
  return Object.fromEntries(await Promise.all(pending));
}

/**
 * Reads the pull secrets the install names, by name, once the lists that name them have arrived. A
 * failed pod list names nothing; a failed ServiceAccount or CacheBackend list narrows the names to
 * what the rest still shows.
 */
async function pullSecretsOf(
  api: KubeApi,
  reads: Promise<[Read<ItemOf<'pods'>>, Read<ItemOf<'serviceAccounts'>>, Read<ItemOf<'cacheBackends'>>]>,
  signal: AbortSignal,
): Promise<Map<string, PullSecretLookup>> {
  const [pods, serviceAccounts, backends] = await reads;
  if (!pods.ok) return new Map();
  const refs = pullSecretRefs(pods.items, backends.ok ? backends.items : [], serviceAccounts.ok ? serviceAccounts.items : []);
  return readPullSecrets(api, refs, signal);
}
