import { obj, optInt, optStr, str, stringMap, objectRef, type Count } from '../encoding/wire.ts';
import { CACHE_GROUP } from './access.ts';
import { conditionsOf, type Condition } from './conditions.ts';
import { defineKind, type ObjectRef } from './kind.ts';
import { suppressAnnotation, type SuppressAnnotation } from './suppress-annotation.ts';

/** The CacheBackend status fields that may carry the published remote endpoint, newest first. */
export type EndpointField = 'status.remoteStorage.endpoint' | 'status.endpoint';

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

/** Projects a CacheBackend of either status shape (current or pre-move of the endpoint field). */
export function projectCacheBackend(raw: unknown): CacheBackend {
  const spec = obj(obj(raw)?.['spec']);
  const status = obj(obj(raw)?.['status']);
  const selector = obj(spec?.['engineSelector']);
  const storage = obj(spec?.['remoteStorage']);
  const participation = obj(status?.['indexParticipation']);
  const current = optStr(obj(status?.['remoteStorage'])?.['endpoint']);
  const legacy = optStr(status?.['endpoint']);
  const matchLabels = selector?.['matchLabels'] === undefined ? undefined : stringMap(selector['matchLabels']);
  const matched = optInt(status?.['matchedEnginePods']);
  const first = optStr(status?.['firstKVEventObservedAt']);
  const prefixCount = optInt(participation?.['prefixCount']);
  const lastEventAt = optStr(participation?.['lastEventAt']);
  const suppress = suppressAnnotation(raw);
  return {
    ...objectRef(raw),
    ...(suppress === undefined ? {} : { suppress }),
    ...(matchLabels === undefined ? {} : { matchLabels }),
    ...(storage === undefined ? {} : { remoteStorage: { ownership: str(storage['ownership']) } }),
    conditions: conditionsOf(status),
    ...(matched === undefined ? {} : { matchedEnginePods: matched }),
    ...(first === undefined ? {} : { firstKVEventObservedAt: first }),
    ...(participation === undefined
      ? {}
      : {
          indexParticipation: {
            ...(prefixCount === undefined ? {} : { prefixCount }),
            ...(lastEventAt === undefined ? {} : { lastEventAt }),
          },
        }),
    ...(current !== undefined
      ? { endpoint: { value: current, field: 'status.remoteStorage.endpoint' as const } }
      : legacy !== undefined
        ? { endpoint: { value: legacy, field: 'status.endpoint' as const } }
        : {}),
  };
}

/** The install's CacheBackends: what engines they select, what they publish, how they are. */
export const CACHE_BACKEND_KIND = defineKind({
  kind: 'CacheBackend',
  access: { ...CACHE_GROUP, resource: 'cachebackends', verbs: ['list'], namespaced: true },
  reads: 'list',
  project: projectCacheBackend,
  dump: { write: 'whole' },
});
