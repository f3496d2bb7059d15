/**
 * The catalogue of everything a check may read, keyed like {@link ClusterState}: a read per Kind read
 * as a whole list, the views of the pod and Event lists, and the reads of single objects. Checks
 * declare reads by these names; the gather plan, the API001 guard and the RBAC test derive from the
 * declarations.
 *
 * @module
 */

import { CORE, type ApiAccess } from '../kinds/access.ts';
import { KINDS, kindEntries, type CollectionName, type KindName, type ListedKind } from '../kinds/kinds.ts';
import type { ReadName } from './state.ts';

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
  const { kind, access } = KINDS[collection];
  return { kind, access, collection, ...(from === undefined ? {} : { from }) };
}

/** A GET of one Namespace by name. */
const NAMESPACE_BY_NAME: ReadSpec = { kind: KINDS.namespaces.kind, access: { ...KINDS.namespaces.access, verbs: ['get'] } };

/**
 * The reads of the Kinds that are more than one read of a whole list, by Kind: the views of the pod
 * and Event lists, the pull secrets read by name, and the Namespaces also read one by one. A name says
 * what the read holds: a check that needs pods no view holds adds a view here, never widens one.
 */
const OTHER_READS = {
  pods: {
    pods: viewOf('pods'),
    installPods: viewOf('pods', ['cacheBackends']),
    selectedPods: viewOf('pods', ['cacheBackends']),
    pendingPodRequests: viewOf('pods'),
  },
  events: { events: viewOf('events'), injectionEvents: viewOf('events'), noMatchEvents: viewOf('events') },
  /**
   * Only the pull secrets the install names, each by name (a `get` per distinct secret, never a
   * `list`); only each secret's type and shape are kept. The chart grants it only for the names in
   * `rbac.pullSecretNames`; any other secret is reported as not verified.
   */
  secrets: { pullSecrets: { kind: KINDS.secrets.kind, access: KINDS.secrets.access, from: ['installPods', 'serviceAccounts'] } },
  /** Under `--namespace` the `namespaces` read is the one Namespace named (the GET of `scopeNamespace`). */
  namespaces: { scopeNamespace: NAMESPACE_BY_NAME, ownNamespace: NAMESPACE_BY_NAME, namespaces: viewOf('namespaces') },
} as const satisfies { readonly [K in KindName]?: { readonly [R in ReadName]?: ReadSpec } };

/** The reads {@link OTHER_READS} names. */
type OtherRead = { [K in keyof typeof OTHER_READS]: keyof (typeof OTHER_READS)[K] }[keyof typeof OTHER_READS];

/** Fails to compile while some read of the state is neither a listed Kind's nor in {@link OTHER_READS}. */
type Covered<T extends never> = T;
export type EveryReadDeclared = Covered<Exclude<ReadName, ListedKind | OtherRead>>;

/**
 * Every read a check may declare, in the order of the Kinds (`kinds/kinds.ts`): a read per Kind read as
 * a whole list, named after it, and the reads of {@link OTHER_READS}.
 */
export const READS: { readonly [K in ReadName]: ReadSpec } = Object.fromEntries(
  kindEntries().flatMap(([name]) => {
    const other: { readonly [R in ReadName]?: ReadSpec } | undefined = (OTHER_READS as Partial<Record<KindName, object>>)[name];
    return other === undefined ? [[name, viewOf(name as CollectionName)]] : Object.entries(other);
  }),
) as { readonly [K in ReadName]: ReadSpec };

/** The reads and, recursively, the reads they are derived from: what gathering them takes. */
export function withSources(reads: Iterable<ReadName>): Set<ReadName> {
  const all = new Set<ReadName>();
  const add = (name: ReadName): void => {
    if (all.has(name)) return;
    all.add(name);
    for (const source of READS[name].from ?? []) add(source);
  };
  for (const name of reads) add(name);
  return all;
}

/**
 * The lists that gathering `reads` (with their sources) takes, each once, in the order of the Kinds:
 * what a run asks the API server to list, page by page.
 */
export function listsOf(reads: Iterable<ReadName>): CollectionName[] {
  const needed = new Set([...withSources(reads)].flatMap((name) => (READS[name].collection === undefined ? [] : [READS[name].collection])));
  return kindEntries().flatMap(([name]) => (needed.has(name as CollectionName) ? [name as CollectionName] : []));
}

/** Finding the cache-plane server's Service: a `get` in its usual namespace, then a `list` everywhere. */
export const SERVER_DISCOVERY: ApiAccess = { ...CORE, resource: 'services', verbs: ['get', 'list'], namespaced: true };
