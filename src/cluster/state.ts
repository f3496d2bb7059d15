/**
 * The gathered picture of the cluster that every check judges. It is built once per run by
 * `gather.ts` and never changes afterwards. Objects are projected to the few fields the checks read,
 * so a 20,000-pod cluster costs what those fields cost, not what the full objects cost.
 */

/** The outcome of one collection read: the items in API order, or why the read failed. */
export type Read<T> =
  | { readonly ok: true; readonly items: readonly T[] }
  | { readonly ok: false; readonly error: string };

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

/** A CacheBackend as the checks see it. Absent fields mean "absent in the object", never zero. */
export interface CacheBackend extends ObjectRef {
  /** `spec.engineSelector.matchLabels`; absent when the selector or its map is absent. */
  readonly matchLabels?: Readonly<Record<string, string>>;
  /** `spec.remoteStorage`, present or not, with its ownership string. */
  readonly remoteStorage?: { readonly ownership: string };
  readonly conditions: readonly Condition[];
  readonly matchedEnginePods?: number;
  /** `status.firstKVEventObservedAt`, RFC 3339 as stored. */
  readonly firstKVEventObservedAt?: string;
  readonly indexParticipation?: { readonly prefixCount?: number; readonly lastEventAt?: string };
  /**
   * The published remote endpoint and the status field it came from: `status.remoteStorage.endpoint`,
   * or for installs older than the move of that field, the flat `status.endpoint`. Absent when neither
   * holds a non-empty string.
   */
  readonly endpoint?: { readonly value: string; readonly field: EndpointField };
}

/** The CacheBackend status fields that may carry the published remote endpoint, newest first. */
export type EndpointField = 'status.remoteStorage.endpoint' | 'status.endpoint';

/** A Pod as the checks see it. */
export interface Pod extends ObjectRef {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
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
  readonly tenantID: string;
  readonly maxIndexEntries?: number;
  readonly indexEntries?: number;
  readonly conditions: readonly Condition[];
}

/** A CachePolicy: only its namespace matters to the checks. */
export type CachePolicy = ObjectRef;

/** Whether the namespace named by `--namespace` exists; `undefined` when no namespace was named. */
export type NamespaceLookup =
  | { readonly kind: 'found' }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'unknown'; readonly error: string };

/** Everything the Kubernetes checks judge, read once per run. */
export interface ClusterState {
  readonly cacheBackends: Read<CacheBackend>;
  readonly pods: Read<Pod>;
  readonly events: Read<EventRecord>;
  readonly cacheTenants: Read<CacheTenant>;
  readonly cachePolicies: Read<CachePolicy>;
  readonly namespace?: NamespaceLookup;
}
