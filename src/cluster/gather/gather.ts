/**
 * The one gathering pass of a run: each list some planned read needs is read once, each object
 * projected by its Kind (`kinds/`) as it arrives, into the state the checks judge.
 *
 * @module
 */

import { Interner } from '../../text/interner.ts';
import type { ItemDecoder } from '../encoding/protobuf-list.ts';
import { collectionPath, isNamespaceName, objectPath } from '../kinds/access.ts';
import type { CacheBackend } from '../kinds/cache-backend.ts';
import { eventDecoder } from '../kinds/event-protobuf.ts';
import { projectEvent } from '../kinds/event.ts';
import type { KindDeclaration, Read } from '../kinds/kind.ts';
import { KINDS, type CollectionName, type ListedKind, type RecordOf } from '../kinds/kinds.ts';
import { foundNamespace, type NamespaceLookup, type NamespaceRecord } from '../kinds/namespace.ts';
import { projectPod, sharePod } from '../kinds/pod.ts';
import type { PullSecretLookup } from '../kinds/secret.ts';
import type { ServiceAccount } from '../kinds/service-account.ts';
import { EVENT_VIEWS, eventViews, eventWanted, type EventViewName, type EventViews } from '../state/event-views.ts';
import { POD_VIEWS, podKeeper, podViews, type BackendsSeen, type OwnPod, type PodViewName, type PodViews } from '../state/pod-views.ts';
import { pullSecretRefs } from '../state/pull-secret-refs.ts';
import { READS, withSources } from '../state/reads.ts';
import type { ClusterState, InstallPod, ReadName } from '../state/state.ts';
import type { ListOptions, ListResult, ObjectSource } from '../transport/kube-api.ts';
import { readPullSecrets } from './pull-secrets.ts';

/** What one run reads: derived from the checks it runs (`checks/registry.ts`), never chosen by hand. */
export interface GatherPlan {
  readonly reads: ReadonlySet<ReadName>;
  /** The `--namespace` scope of every namespaced list; empty means all namespaces. */
  readonly namespace: string;
  /** The doctor's own pod: its namespace is looked up for `ownNamespace`, and the pod is left out of every pod view. */
  readonly self?: { readonly namespace: string; readonly name?: string | undefined };
}

/** A failed read, said the way an operator acts on it: a 404 for a custom resource means its CRD is missing. */
function notServed<T>(collection: CollectionName, result: ListResult<T>): Read<T> {
  const { access } = KINDS[collection];
  if (result.ok) return result;
  if (!('status' in result) || result.status !== 404 || access.group === '') return { ok: false, error: result.error };
  return {
    ok: false,
    error: `the API server does not serve ${access.resource}.${access.group}/${access.version} (is the CRD installed?): ${result.error}`,
  };
}

/**
 * Reads one list, each object through `project` (undefined drops it). `decode`, for a list the
 * catalogue reads in protobuf, decodes its items instead of the Kind's own decoder.
 */
async function listOf<T>(
  api: ObjectSource,
  collection: CollectionName,
  namespace: string,
  signal: AbortSignal,
  project: (raw: unknown) => T | undefined,
  decode?: ItemDecoder,
): Promise<Read<T>> {
  const { access, metadataFollowedBy, protobuf }: KindDeclaration = KINDS[collection];
  const options: ListOptions = {
    ...(metadataFollowedBy === undefined ? {} : { metadataFollowedBy }),
    ...(protobuf === undefined ? {} : { protobuf: decode === undefined ? protobuf : { ...protobuf, decode } }),
  };
  return notServed(collection, await api.list(collectionPath(access, namespace), project, signal, {}, options));
}

async function lookupNamespace(api: ObjectSource, namespace: string, signal: AbortSignal): Promise<NamespaceLookup> {
  if (!isNamespaceName(namespace))
    return { kind: 'unknown', error: `${JSON.stringify(namespace)} is not a namespace name, so it was not looked up` };
  const res = await api.get(objectPath(READS.scopeNamespace.access, '', namespace), signal);
  if (res.ok) return foundNamespace(res.body);
  if (res.status === 404) return { kind: 'not-found' };
  return { kind: 'unknown', error: res.error };
}

/** The `namespaces` read under `--namespace`: the one namespace, when it carries a suppression annotation. */
function scopedNamespaces(name: string, found: NamespaceLookup): Read<NamespaceRecord> {
  if (found.kind === 'unknown') return { ok: false, error: found.error };
  return { ok: true, items: found.kind === 'found' && found.suppress !== undefined ? [{ name, suppress: found.suppress }] : [] };
}

/** The views of `names` that `reads` holds. */
function viewsIn<N extends ReadName>(reads: ReadonlySet<ReadName>, names: readonly N[]): Set<N> {
  return new Set(names.filter((name) => reads.has(name)));
}

/**
 * The one gathering pass: each list some planned read needs is read once, all in parallel, page by
 * page, keeping only what the planned views of it hold; the only reads of single objects are the
 * namespaces named by `--namespace` and the doctor's own (one GET for both when they are the same) and
 * the pull secrets the install names, each once, which start as soon as the install's pods and the
 * ServiceAccounts have arrived. A failed read is recorded in the state, never thrown; the check that
 * needs it reports it.
 */
export async function gatherClusterState(api: ObjectSource, plan: GatherPlan, signal: AbortSignal): Promise<ClusterState> {
  const reads = withSources(plan.reads);
  const own: OwnPod | undefined = plan.self?.name === undefined ? undefined : { namespace: plan.self.namespace, name: plan.self.name };
  const lists = new Map<ListedKind, Promise<Read<unknown>>>();
  const list = <K extends ListedKind>(name: K): Promise<Read<RecordOf<K>>> => {
    const pending = lists.get(name) ?? listOf(api, name, plan.namespace, signal, KINDS[name].project as (raw: unknown) => unknown);
    lists.set(name, pending);
    return pending as Promise<Read<RecordOf<K>>>;
  };
  const namespaces = new Map<string, Promise<NamespaceLookup>>();
  const lookup = (name: string): Promise<NamespaceLookup> => {
    const pending = namespaces.get(name) ?? lookupNamespace(api, name, signal);
    namespaces.set(name, pending);
    return pending;
  };

  const interner = new Interner();
  const podViewNames = viewsIn<PodViewName>(reads, POD_VIEWS);
  let pods: Promise<PodViews> | undefined;
  const podViewsOf = () =>
    (pods ??= gatherPods(
      api,
      plan.namespace,
      podViewNames,
      own,
      reads.has('cacheBackends') ? list('cacheBackends') : undefined,
      interner,
      signal,
    ));
  const eventViewNames = viewsIn<EventViewName>(reads, EVENT_VIEWS);
  const wanted = eventWanted(eventViewNames);
  let events: Promise<EventViews> | undefined;
  const eventViewsOf = () =>
    (events ??= listOf(api, 'events', plan.namespace, signal, (raw) => projectEvent(raw, wanted, interner), eventDecoder(wanted)).then(
      (read) => eventViews(read, eventViewNames),
    ));

  const pending: Promise<readonly [ReadName, ClusterState[ReadName]]>[] = [];
  const add = (name: ReadName, value: Promise<ClusterState[ReadName]>) => pending.push(value.then((v) => [name, v] as const));
  for (const name of reads) {
    switch (name) {
      case 'pods':
      case 'installPods':
      case 'selectedPods':
      case 'pendingPodRequests':
        add(
          name,
          podViewsOf().then((views) => views[name]),
        );
        break;
      case 'events':
      case 'injectionEvents':
      case 'noMatchEvents':
        add(
          name,
          eventViewsOf().then((views) => views[name]),
        );
        break;
      case 'pullSecrets':
        add(name, pullSecretsOf(api, Promise.all([podViewsOf().then((views) => views.installPods), list('serviceAccounts')]), signal));
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

/** What the CacheBackends are to the pod views once their read has ended (or was never planned). */
function backendsSeen(read: Read<CacheBackend> | undefined): Exclude<BackendsSeen, { kind: 'pending' }> {
  if (read === undefined) return { kind: 'failed', error: 'the CacheBackends were not read' };
  return read.ok ? { kind: 'known', items: read.items } : { kind: 'failed', error: `listing CacheBackend objects failed: ${read.error}` };
}

/**
 * Reads the pod list into its views. Which pods the CacheBackends select is known only once they are
 * read: until then every pod a selection view might hold is kept, from then on only the ones it does,
 * and the views are sorted out at the end.
 */
async function gatherPods(
  api: ObjectSource,
  namespace: string,
  views: ReadonlySet<PodViewName>,
  own: OwnPod | undefined,
  backends: Promise<Read<CacheBackend>> | undefined,
  interner: Interner,
  signal: AbortSignal,
): Promise<PodViews> {
  let seen: BackendsSeen = backends === undefined ? backendsSeen(undefined) : { kind: 'pending' };
  void backends?.then((read) => (seen = backendsSeen(read)));
  const keep = podKeeper(views, own, () => seen);
  const reads = await listOf(api, 'pods', namespace, signal, (raw) => {
    const read = projectPod(raw);
    return keep(read) ? sharePod(read, interner) : undefined;
  });
  return podViews(reads, backendsSeen(await backends), views, own);
}

/**
 * Reads the pull secrets the install names, by name, once the lists that name them have arrived. A
 * failed pod list names nothing; a failed ServiceAccount list narrows the names to what the pods show.
 */
async function pullSecretsOf(
  api: ObjectSource,
  reads: Promise<[Read<InstallPod> | undefined, Read<ServiceAccount>]>,
  signal: AbortSignal,
): Promise<Map<string, PullSecretLookup>> {
  const [installPods, serviceAccounts] = await reads;
  if (installPods?.ok !== true) return new Map();
  const refs = pullSecretRefs(installPods.items, serviceAccounts.ok ? serviceAccounts.items : []);
  return readPullSecrets(api, refs, signal);
}
