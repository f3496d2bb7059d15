/**
 * The gathered picture of the cluster that every check judges. It is built once per run by
 * `gather.ts` and never changes afterwards. Objects are projected to the few fields the checks read,
 * so a 20,000-pod cluster costs what those fields cost, not what the full objects cost.
 *
 * @module
 */

import type { Count } from './wire.ts';

/** The outcome of one collection read: the items in API order, or why the read failed. */
export type Read<T> = { readonly ok: true; readonly items: readonly T[] } | { readonly ok: false; readonly error: string };

/** A `metav1.Condition`, reduced to what the checks read. */
export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** Namespace, name and uid of an object. */
export interface ObjectRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/**
 * The doctor's suppression annotations of an object (`inferencecache.io/doctor-suppress`, the codes,
 * and `inferencecache.io/doctor-suppress-reason`), as written; parsed by the suppression stage.
 */
export interface SuppressAnnotation {
  readonly codes: string;
  readonly reason?: string;
}

/** A CacheBackend as the checks see it. Absent fields mean "absent in the object", never zero. */
export interface CacheBackend extends ObjectRef {
  /** Its suppression annotation, when it has one. */
  readonly suppress?: SuppressAnnotation;
  /** `spec.engineSelector.matchLabels`; absent when the selector or its map is absent. */
  readonly matchLabels?: Readonly<Record<string, string>>;
  /** `spec.remoteStorage`, present or not, with its ownership string. */
  readonly remoteStorage?: { readonly ownership: string };
  readonly conditions: readonly Condition[];
  readonly matchedEnginePods?: Count;
  /** `status.firstKVEventObservedAt`, RFC 3339 as stored. */
  readonly firstKVEventObservedAt?: string;
  readonly indexParticipation?: { readonly prefixCount?: Count; readonly lastEventAt?: string };
  /**
   * The published remote endpoint and the status field it came from: `status.remoteStorage.endpoint`,
   * or for installs older than the move of that field, the flat `status.endpoint`. Absent when neither
   * holds a non-empty string.
   */
  readonly endpoint?: { readonly value: string; readonly field: EndpointField };
}

/** The CacheBackend status fields that may carry the published remote endpoint, newest first. */
export type EndpointField = 'status.remoteStorage.endpoint' | 'status.endpoint';

/** A Pod as the checks see it. Every optional field is absent when the object does not set it. */
export interface Pod extends ObjectRef {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** `status.phase`, e.g. `Pending`; NodeFit judges only pods still waiting for a node. */
  readonly phase?: string;
  /** `spec.nodeName`: set once the pod is bound, so the scheduler has already found it a node. */
  readonly nodeName?: string;
  /** `spec.serviceAccountName` (or the deprecated `spec.serviceAccount`), whose pull secrets also apply. */
  readonly serviceAccountName?: string;
  /** Names of `spec.imagePullSecrets`, in spec order, empty names dropped. */
  readonly imagePullSecrets?: readonly string[];
  /**
   * The scheduler's message when `PodScheduled` is False with reason `Unschedulable` (possibly empty);
   * absent otherwise.
   */
  readonly unschedulable?: string;
  /** Containers (init, regular, ephemeral) currently in a waiting state, with the kubelet's reason. */
  readonly waiting?: readonly ContainerWaiting[];
  /** Container ports that carry a name, which a NetworkPolicy may refer to instead of a number. */
  readonly namedPorts?: readonly NamedPort[];
}

/** Resource name → quantity exactly as written, e.g. `{ cpu: '500m', 'nvidia.com/gpu': '1' }`. */
export type ResourceList = Readonly<Record<string, string>>;

/**
 * The inputs of a pod's effective request, kept per container because the rule is not a plain sum:
 * init containers run one at a time, restartable (sidecar) init containers keep running beside the rest.
 */
export interface PodRequests {
  /**
   * Per regular container: its requests, with a limit standing in for a resource that has no request
   * (the API server defaults requests to limits, and objects from files may predate that).
   */
  readonly containers: readonly ResourceList[];
  /** Per init container, in order; `sidecar` when its `restartPolicy` is `Always`. */
  readonly initContainers: readonly { readonly requests: ResourceList; readonly sidecar: boolean }[];
  /** `spec.overhead`, added on top by the RuntimeClass. */
  readonly overhead?: ResourceList;
  /** `spec.resources.requests` (pod-level resources), which replace the aggregate for what they name. */
  readonly podLevel?: ResourceList;
}

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

/** A container waiting to start, e.g. reason `ImagePullBackOff`. */
export interface ContainerWaiting {
  readonly container: string;
  readonly image: string;
  readonly reason: string;
  readonly message: string;
}

/** A named container port. */
export interface NamedPort {
  readonly name: string;
  readonly port: number;
  /** `TCP` when the spec leaves it out. */
  readonly protocol: string;
}

/** A Node as NodeFit sees it. */
export interface NodeRecord {
  readonly name: string;
  /** Whether the `Ready` condition is `True`. */
  readonly ready: boolean;
  /** `spec.unschedulable` (cordoned). */
  readonly unschedulable: boolean;
  /** `status.allocatable`, quantities as written. */
  readonly allocatable: ResourceList;
}

/** A ServiceAccount: only its pull secrets matter. */
export interface ServiceAccount extends ObjectRef {
  readonly imagePullSecrets: readonly string[];
}

/**
 * What the doctor learnt about one referenced pull secret, without keeping any of its content: only
 * its type and the shape of the credentials document.
 */
export type PullSecretLookup =
  | { readonly kind: 'found'; readonly type: string; readonly content: PullSecretContent }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'unknown'; readonly status?: number | undefined; readonly error: string };

/**
 * The shape of a pull secret's credentials document, judged against the key its type defines
 * (`.dockerconfigjson` for `kubernetes.io/dockerconfigjson`, `.dockercfg` for the legacy
 * `kubernetes.io/dockercfg`). `registries` counts the entries; the entries themselves are dropped.
 */
export type PullSecretContent =
  | { readonly kind: 'no-key'; readonly key: string }
  | { readonly kind: 'not-json'; readonly key: string }
  | { readonly kind: 'not-object'; readonly key: string }
  | { readonly kind: 'no-auths'; readonly key: string }
  | { readonly kind: 'credentials'; readonly key: string; readonly registries: number }
  /** The type defines no credentials key (e.g. `Opaque`), so the document was not looked at. */
  | { readonly kind: 'not-applicable' };

/** A label selector as written (`matchLabels` and `matchExpressions`). */
export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly SelectorRequirement[];
}

/** One `matchExpressions` entry; the operator is kept as written so an unknown one can match nothing. */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values: readonly string[];
}

/** A `NetworkPolicyPeer`: whichever of its fields the object sets. */
export interface PolicyPeer {
  readonly podSelector?: LabelSelector;
  readonly namespaceSelector?: LabelSelector;
  readonly ipBlock?: { readonly cidr: string; readonly except: readonly string[] };
}

/** A `NetworkPolicyPort`: a number or a name, or absent for every port of the protocol. */
export interface PolicyPort {
  /** `TCP` when the spec leaves it out. */
  readonly protocol: string;
  readonly port?: number | string;
  readonly endPort?: number;
}

/** One ingress rule; an empty `from` admits every source, empty `ports` every port. */
export interface IngressRule {
  readonly from: readonly PolicyPeer[];
  readonly ports: readonly PolicyPort[];
}

/** A networking.k8s.io/v1 NetworkPolicy, reduced to its ingress side. */
export interface NetworkPolicyRecord extends ObjectRef {
  readonly podSelector: LabelSelector;
  /** `spec.policyTypes` as written; absent means Ingress is implied. */
  readonly policyTypes?: readonly string[];
  readonly ingress: readonly IngressRule[];
}

/**
 * An Event, normalised from the core/v1 view (the events.k8s.io/v1 API serves the same objects, so one
 * view is read and each Event counted once). `time` is the first set of series.lastObservedTime,
 * lastTimestamp, eventTime and creationTimestamp, RFC 3339; empty when none is set.
 */
export interface EventRecord {
  readonly reason: string;
  readonly message: string;
  readonly time: string;
  readonly involved: { readonly kind: string; readonly namespace: string; readonly name: string; readonly uid: string };
}

/** A CacheTenant as the checks see it. */
export interface CacheTenant extends ObjectRef {
  /** Its suppression annotation, when it has one. */
  readonly suppress?: SuppressAnnotation;
  readonly tenantID: string;
  readonly maxIndexEntries?: Count;
  readonly indexEntries?: Count;
  readonly conditions: readonly Condition[];
}

/** A CachePolicy: only its namespace matters to the checks. */
export type CachePolicy = ObjectRef;

/** What a GET of one Namespace found: its labels, that it does not exist, or why it could not be read. */
export type NamespaceLookup =
  | { readonly kind: 'found'; readonly labels?: Readonly<Record<string, string>>; readonly suppress?: SuppressAnnotation }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'unknown'; readonly error: string };

/**
 * Everything the checks judge, read once per run. Each key is one read of the catalogue in `reads.ts`;
 * a key is present exactly when the run gathered it, which is when some check of the run declared it
 * (see `checks/registry.ts`). A check never runs without the reads it requires, and sees no other.
 *
 * Several reads may be views of one list (the pods, the Events): the list is read once, and each view
 * keeps what its name says. A view that fails, fails with its list.
 */
export interface ClusterState {
  readonly cacheBackends?: Read<CacheBackend>;
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
  readonly cacheTenants?: Read<CacheTenant>;
  readonly cachePolicies?: Read<CachePolicy>;
  readonly nodes?: Read<NodeRecord>;
  readonly serviceAccounts?: Read<ServiceAccount>;
  readonly networkPolicies?: Read<NetworkPolicyRecord>;
  /** Every pull secret the install's pods and their ServiceAccounts name, keyed `<namespace>/<name>`. */
  readonly pullSecrets?: ReadonlyMap<string, PullSecretLookup>;
  /** The namespace named by `--namespace`; absent when none was named. */
  readonly scopeNamespace?: NamespaceLookup;
  /** The doctor's own namespace (from `POD_NAMESPACE`), with its labels; absent outside a pod. */
  readonly ownNamespace?: NamespaceLookup;
  /**
   * The namespaces in scope that carry a suppression annotation (every other is dropped as it is
   * read): all of them, or under `--namespace` the one named, read with the GET of `scopeNamespace`.
   */
  readonly namespaces?: Read<NamespaceRecord>;
}

/** A Namespace that carries a suppression annotation. */
export interface NamespaceRecord {
  readonly name: string;
  readonly suppress: SuppressAnnotation;
}

/** The name of one read: a key of {@link ClusterState}. */
export type ReadName = keyof ClusterState;

/** What one read holds once gathered. */
export type Gathered<K extends ReadName> = NonNullable<ClusterState[K]>;

/** The reads that are lists of objects (as opposed to lookups of single objects). */
export type ListName = { [K in ReadName]-?: Gathered<K> extends Read<unknown> ? K : never }[ReadName];

/** The item type of a list read. */
export type ItemOf<K extends ListName> = Gathered<K> extends Read<infer T> ? T : never;
