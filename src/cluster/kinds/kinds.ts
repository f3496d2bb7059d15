/**
 * THE catalogue of Kinds the doctor reads, in the order of the reads (`state/reads.ts`); a dump writes
 * the listed Kinds in this order, then those read by name. The reads of the checks
 * (`state/reads.ts`), the keys of the gathered state, the paths `doctor -f` answers from files and what
 * `inferencecache dump` writes all derive from it. A new Kind is one file of this folder and one line
 * here (CONTRIBUTING.md, "A check that reads a new Kind").
 *
 * @module
 */

import { CACHE_BACKEND_KIND } from './cache-backend.ts';
import { CACHE_POLICY_KIND } from './cache-policy.ts';
import { CACHE_TENANT_KIND } from './cache-tenant.ts';
import { EVENT_KIND } from './event.ts';
import type { KindDeclaration } from './kind.ts';
import { LEASE_KIND } from './lease.ts';
import { NAMESPACE_KIND } from './namespace.ts';
import { NETWORK_POLICY_KIND } from './network-policy.ts';
import { NODE_KIND } from './node.ts';
import { POD_KIND } from './pod.ts';
import { SECRET_KIND } from './secret.ts';
import { SERVICE_ACCOUNT_KIND } from './service-account.ts';

/** Every Kind a run may read, by the name of its collection. */
export const KINDS = {
  cacheBackends: CACHE_BACKEND_KIND,
  pods: POD_KIND,
  events: EVENT_KIND,
  cacheTenants: CACHE_TENANT_KIND,
  cachePolicies: CACHE_POLICY_KIND,
  nodes: NODE_KIND,
  serviceAccounts: SERVICE_ACCOUNT_KIND,
  networkPolicies: NETWORK_POLICY_KIND,
  secrets: SECRET_KIND,
  namespaces: NAMESPACE_KIND,
  leases: LEASE_KIND,
} as const satisfies Readonly<Record<string, KindDeclaration>>;

/** The name of one Kind's collection: a key of {@link KINDS}. */
export type KindName = keyof typeof KINDS;

/** The record a listed object of Kind `K` is projected to. */
export type RecordOf<K extends KindName> = (typeof KINDS)[K] extends KindDeclaration<infer R> ? R : never;

/** The Kinds read as whole lists, each one read of its own (see `ReadShape`). */
export type ListedKind = { [K in KindName]: (typeof KINDS)[K]['reads'] extends 'list' ? K : never }[KindName];

/** The Kinds that are listed at all (as one read, or as views). */
export type CollectionName = { [K in KindName]: (typeof KINDS)[K]['reads'] extends 'by-name' ? never : K }[KindName];

/** The Kinds in catalogue order, with their collection names. */
export function kindEntries(): [KindName, KindDeclaration][] {
  return Object.entries(KINDS) as [KindName, KindDeclaration][];
}
