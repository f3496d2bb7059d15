/**
 * The gathered picture of the cluster that every check judges. It is built once per run by the
 * gathering (`gather/gather.ts`) and never changes afterwards. Objects are projected to the few fields
 * the checks read (`kinds/`), so a 20,000-pod cluster costs what those fields cost, not what the full
 * objects cost.
 *
 * @module
 */

import type { EventRecord } from '../kinds/event.ts';
import type { Read } from '../kinds/kind.ts';
import type { ListedKind, RecordOf } from '../kinds/kinds.ts';
import type { NamespaceLookup } from '../kinds/namespace.ts';
import type { Pod, PodRequests } from '../kinds/pod.ts';
import type { PullSecretLookup } from '../kinds/secret.ts';

/**
 * What a pod waiting for a node asks of one (see `isWaitingForNode`), by the pod's namespace and name.
 * Only pods without a node carry their requests this far: a running pod's are the scheduler's past.
 */
export interface PendingPodRequests {
  readonly namespace: string;
  readonly name: string;
  readonly requests: PodRequests;
}

/**
 * What a pod is to the install:
 * - `server`, `controller`: labelled `app.kubernetes.io/name=inference-cache` with that component;
 * - `workload`: any other pod with the install's name label, which is how the managed cache workloads
 *   (and anything else the install deploys) are recognised — the pod's owner chain is not read;
 * - `engine`: selected by a CacheBackend of its namespace (the same equality rule as
 *   EnginePodInjectionAudit).
 */
export type InstallRole = 'server' | 'controller' | 'workload' | 'engine';

/** A pod of the install and its role. */
export interface InstallPod {
  readonly pod: Pod;
  readonly role: InstallRole;
}

/** One read per Kind read as a whole list (`kinds/kinds.ts`): its records, or why the list failed. */
type ListedReads = { readonly [K in ListedKind]?: Read<RecordOf<K>> };

/** The views of the pod and Event lists, and the reads of single objects. */
interface ViewsAndLookups {
  /** Every pod in scope, except the doctor's own. */
  readonly pods?: Read<Pod>;
  /**
   * The install's pods with their roles (`InstallRole`), in list order: the pods labelled as the
   * install's (server, controller, managed workloads) and the engine pods a CacheBackend of their
   * namespace selects. Without the CacheBackends (their read failed), only the labelled ones.
   */
  readonly installPods?: Read<InstallPod>;
  /** The pods some CacheBackend of their namespace selects (the engine pods), in list order. */
  readonly selectedPods?: Read<Pod>;
  /** The requests of every pod in scope that waits for a node. */
  readonly pendingPodRequests?: Read<PendingPodRequests>;
  /** Every Event in scope (the core/v1 view; the events.k8s.io view serves the same objects). */
  readonly events?: Read<EventRecord>;
  /** The Events in scope that say a CacheBackend injected a pod (`InjectedByCacheBackend`, about Pods). */
  readonly injectionEvents?: Read<EventRecord>;
  /** The Events in scope that say no CacheBackend matched a pod (`NoMatchingCacheBackend`, about Pods). */
  readonly noMatchEvents?: Read<EventRecord>;
  /** Every pull secret the install's pods and their ServiceAccounts name, keyed `<namespace>/<name>`. */
  readonly pullSecrets?: ReadonlyMap<string, PullSecretLookup>;
  /** The namespace named by `--namespace`; absent when none was named. */
  readonly scopeNamespace?: NamespaceLookup;
  /** The doctor's own namespace (from `POD_NAMESPACE`), with its labels; absent outside a pod. */
  readonly ownNamespace?: NamespaceLookup;
}

/**
 * Everything the checks judge, read once per run. Each key is one read of the catalogue in `reads.ts`;
 * a key is present exactly when the run gathered it, which is when some check of the run declared it
 * (see `checks/registry.ts`). A check never runs without the reads it requires, and sees no other.
 *
 * Several reads may be views of one list (the pods, the Events): the list is read once, and each view
 * keeps what its name says. A view that fails, fails with its list. The Namespaces read (`namespaces`)
 * holds only those that carry a suppression annotation: all of them, or under `--namespace` the one
 * named, read with the GET of `scopeNamespace`.
 */
export type ClusterState = ListedReads & ViewsAndLookups;

/** The name of one read: a key of {@link ClusterState}. */
export type ReadName = keyof ClusterState;

/** What one read holds once gathered. */
export type Gathered<K extends ReadName> = NonNullable<ClusterState[K]>;

/** The reads that are lists of objects (as opposed to lookups of single objects). */
export type ListName = { [K in ReadName]-?: Gathered<K> extends Read<unknown> ? K : never }[ReadName];

/** The item type of a list read. */
export type ItemOf<K extends ListName> = Gathered<K> extends Read<infer T> ? T : never;
