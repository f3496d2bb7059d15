import { obj, optInt, str, objectRef, type Count } from '../encoding/wire.ts';
import { CACHE_GROUP } from './access.ts';
import { conditionsOf, type Condition } from './conditions.ts';
import { defineKind, type ObjectRef } from './kind.ts';
import { suppressAnnotation, type SuppressAnnotation } from './suppress-annotation.ts';

/** A CacheTenant as the checks see it. */
export interface CacheTenant extends ObjectRef {
  /** Its suppression annotation, when it has one. */
  readonly suppress?: SuppressAnnotation;
  readonly tenantID: string;
  readonly maxIndexEntries?: Count;
  readonly indexEntries?: Count;
  readonly conditions: readonly Condition[];
}

/** Projects a CacheTenant to its tenant ID, quota, entry count and conditions. */
export function projectCacheTenant(raw: unknown): CacheTenant {
  const spec = obj(obj(raw)?.['spec']);
  const status = obj(obj(raw)?.['status']);
  const max = optInt(obj(spec?.['quota'])?.['maxIndexEntries']);
  const entries = optInt(status?.['indexEntries']);
  const suppress = suppressAnnotation(raw);
  return {
    ...objectRef(raw),
    ...(suppress === undefined ? {} : { suppress }),
    tenantID: str(spec?.['tenantID']),
    ...(max === undefined ? {} : { maxIndexEntries: max }),
    ...(entries === undefined ? {} : { indexEntries: entries }),
    conditions: conditionsOf(status),
  };
}

/** The tenants of the cache: their quotas and how full they are. */
export const CACHE_TENANT_KIND = defineKind({
  kind: 'CacheTenant',
  access: { ...CACHE_GROUP, resource: 'cachetenants', verbs: ['list'], namespaced: true },
  reads: 'list',
  project: projectCacheTenant,
  dump: { write: 'whole' },
});
