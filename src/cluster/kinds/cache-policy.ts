import { objectRef } from '../encoding/wire.ts';
import { CACHE_GROUP } from './access.ts';
import { defineKind, type ObjectRef } from './kind.ts';

/** A CachePolicy: only its namespace matters to the checks. */
export type CachePolicy = ObjectRef;

/** A CachePolicy is counted, never read: its identity is enough. */
export function projectCachePolicy(raw: unknown): CachePolicy {
  return objectRef(raw);
}

/** The policies of the cache: which namespaces have one. */
export const CACHE_POLICY_KIND = defineKind({
  kind: 'CachePolicy',
  access: { ...CACHE_GROUP, resource: 'cachepolicies', verbs: ['list'], namespaced: true },
  reads: 'list',
  project: projectCachePolicy,
  dump: { write: 'whole' },
});
