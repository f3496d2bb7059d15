import type { ProtobufList } from './api.ts';
import { decodeEvent, decodePod } from './protobuf/objects.ts';
import type { ReadName } from './state.ts';

/**
 * One Kubernetes API access, verb for verb. The chart's ClusterRole grants exactly the accesses of the
 * reads the checks declare (a test compares the two in both directions); an access missing here is a
 * bug in one of them.
 */
export interface ApiAccess {
  /** API group; "" is the core group. */
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly verbs: readonly ('get' | 'list')[];
  /** Whether the resource lives in namespaces. */
  readonly namespaced: boolean;
  /**
   * Read only object by object, by name, and granted only for the names an operator lists (RBAC
   * `resourceNames`): without the grant the check says what it could not verify instead of failing.
   */
  readonly byNameOnly?: boolean;
}

/**
 * One API list of the run. Several reads may be views of one list (the pods, the Events); the list is
 * still read once, keeping what its views hold.
 */
export interface CollectionSpec {
  /** The Kind it holds, named in API001. */
  readonly kind: string;
  readonly access: ApiAccess;
  /**
   * The key an API server writes right after an object's `metadata`, for a built-in Kind whose
   * fields it writes in their Go order: lets a list leave `managedFields` (the last field of
   * `metadata`) unparsed (see `withoutManagedFields`).
   */
  readonly metadataFollowedBy?: string;
  /**
   * For a built-in Kind with many objects, its reading in protobuf: the API server encodes it for
   * half the CPU of JSON, and the doctor decodes only the fields it reads (docs/protobuf.md).
   */
  readonly protobuf?: ProtobufList;
}

const CACHE_GROUP = { group: 'inferencecache.io', version: 'v1alpha1' } as const;
const CORE = { group: '', version: 'v1' } as const;

/** The lists a run may read, each at most once. */
export const COLLECTIONS = {
  cacheBackends: { kind: 'CacheBackend', access: { ...CACHE_GROUP, resource: 'cachebackends', verbs: ['list'], namespaced: true } },
  pods: {
    kind: 'Pod',
    access: { ...CORE, resource: 'pods', verbs: ['list'], namespaced: true },
    metadataFollowedBy: 'spec',
    protobuf: { kind: 'Pod', decode: decodePod },
  },
  events: {
    kind: 'Event',
    access: { ...CORE, resource: 'events', verbs: ['list'], namespaced: true },
    metadataFollowedBy: 'involvedObject',
    protobuf: { kind: 'Event', decode: decodeEvent },
  },
  cacheTenants: { kind: 'CacheTenant', access: { ...CACHE_GROUP, resource: 'cachetenants', verbs: ['list'], namespaced: true } },
  cachePolicies: { kind: 'CachePolicy', access: { ...CACHE_GROUP, resource: 'cachepolicies', verbs: ['list'], namespaced: true } },
  nodes: { kind: 'Node', access: { ...CORE, resource: 'nodes', verbs: ['list'], namespaced: false } },
  serviceAccounts: { kind: 'ServiceAccount', access: { ...CORE, resource: 'serviceaccounts', verbs: ['list'], namespaced: true } },
  networkPolicies: {
    kind: 'NetworkPolicy',
    access: { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', verbs: ['list'], namespaced: true },
  },
  namespaces: { kind: 'Namespace', access: { ...CORE, resource: 'namespaces', verbs: ['list'], namespaced: false } },
} as const satisfies Readonly<Record<string, CollectionSpec>>;

/** The name of one API list. */
export type CollectionName = keyof typeof COLLECTIONS;

/** One read of the catalogue: the Kind it reads (named in API001) and the API access it takes. */
export interface ReadSpec {
  readonly kind: string;
  readonly access: ApiAccess;
  /** The list this read is a view of; absent for the reads of single objects. */
  readonly collection?: CollectionName;
  /** Reads this one is derived from, gathered first (engine pods are told by the CacheBackends). */
  readonly from?: readonly ReadName[];
}

/** A read that is the whole of a list, or one view of it. */
function viewOf(collection: CollectionName, from?: readonly ReadName[]): ReadSpec {
  const { kind, access } = COLLECTIONS[collection];
  return { kind, access, collection, ...(from === undefined ? {} : { from }) };
}

/**
 * The catalogue of everything a check may read, keyed like {@link ClusterState}. Checks declare reads
 * by these names; the gather plan, the API001 guard and the RBAC test derive from the declarations.
 * A read's name says what it holds: a check that needs pods no view holds adds a view here, never
 * widens one.
 */
export const READS = {
  cacheBackends: viewOf('cacheBackends'),
  pods: viewOf('pods'),
  installPods: viewOf('pods', ['cacheBackends']),
  selectedPods: viewOf('pods', ['cacheBackends']),
  pendingPodRequests: viewOf('pods'),
  events: viewOf('events'),
  injectionEvents: viewOf('events'),
  noMatchEvents: viewOf('events'),
  cacheTenants: viewOf('cacheTenants'),
  cachePolicies: viewOf('cachePolicies'),
  nodes: viewOf('nodes'),
  serviceAccounts: viewOf('serviceAccounts'),
  networkPolicies: viewOf('networkPolicies'),
  /**
   * Only the pull secrets the install names, each by name (a `get` per distinct secret, never a
   * `list`); only each secret's type and shape are kept. The chart grants it only for the names in
   * `rbac.pullSecretNames`; any other secret is reported as not verified.
   */
  pullSecrets: {
    kind: 'Secret',
    access: { ...CORE, resource: 'secrets', verbs: ['get'], namespaced: true, byNameOnly: true },
    from: ['installPods', 'serviceAccounts'],
  },
  scopeNamespace: { kind: 'Namespace', access: { ...CORE, resource: 'namespaces', verbs: ['get'], namespaced: false } },
  ownNamespace: { kind: 'Namespace', access: { ...CORE, resource: 'namespaces', verbs: ['get'], namespaced: false } },
  /** Listed for their suppression annotations; under `--namespace` only the one named is read (a GET). */
  namespaces: viewOf('namespaces'),
} as const satisfies { readonly [K in ReadName]: ReadSpec };

/** The reads and, recursively, the reads they are derived from: what gathering them takes. */
export function withSources(reads: Iterable<ReadName>): Set<ReadName> {
  const all = new Set<ReadName>();
  const add = (name: ReadName): void => {
    if (all.has(name)) return;
    all.add(name);
    for (const source of (READS[name] as { from?: readonly ReadName[] }).from ?? []) add(source);
  };
  for (const name of reads) add(name);
  return all;
}

/** Finding the cache-plane server's Service: a `get` in its usual namespace, then a `list` everywhere. */
export const SERVER_DISCOVERY: ApiAccess = { ...CORE, resource: 'services', verbs: ['get', 'list'], namespaced: true };

const DNS_1123_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/** Whether `name` can name a namespace (a DNS-1123 label). */
export function isNamespaceName(name: string): boolean {
  return DNS_1123_LABEL.test(name);
}

/**
 * Whether `name` can name an object such as a Secret (a DNS-1123 subdomain). A name from the cluster
 * that cannot is never put into a URL: `..` or `a/b` would change which URL is read.
 */
export function isObjectName(name: string): boolean {
  return DNS_1123_SUBDOMAIN.test(name);
}

/**
 * The REST path of a collection, cluster-wide when `namespace` is empty.
 *
 * @throws RangeError for a namespace that is not a namespace name (the CLI refuses those first).
 */
export function collectionPath(access: ApiAccess, namespace: string): string {
  if (namespace !== '' && !isNamespaceName(namespace)) throw new RangeError(`${JSON.stringify(namespace)} is not a namespace name`);
  const base = access.group === '' ? `/api/${access.version}` : `/apis/${access.group}/${access.version}`;
  const scope = access.namespaced && namespace !== '' ? `/namespaces/${namespace}` : '';
  return `${base}${scope}/${access.resource}`;
}

/**
 * The REST path of one object.
 *
 * @throws RangeError for a name that cannot be an object's (check with {@link isObjectName} first).
 */
export function objectPath(access: ApiAccess, namespace: string, name: string): string {
  if (!isObjectName(name)) throw new RangeError(`${JSON.stringify(name)} is not an object name`);
  return `${collectionPath(access, namespace)}/${name}`;
}
