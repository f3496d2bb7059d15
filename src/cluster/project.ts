/**
 * Projections from raw API objects to the records of `state.ts`, through the tolerant readers of
 * `wire.ts`: a malformed object reads as absent fields, because a diagnostic must not crash on the
 * very breakage it is meant to report.
 *
 * @module
 */

import { INSTALL_ANNOTATION_PREFIX } from './install.ts';
import { Interner } from './interner.ts';
import { projectPodFacts } from './project-pod-facts.ts';
import type { PodRead } from './pod-views.ts';
import type { CacheBackend, CachePolicy, CacheTenant, Condition, EventRecord, NamespaceRecord, Pod } from './state.ts';
import { suppressAnnotation } from './suppress-annotation.ts';
import { obj, objectRef as refOf, optInt, optStr, str, stringMap, type WireObject } from './wire.ts';

function conditionsOf(status: WireObject | undefined): Condition[] {
  const list = status?.['conditions'];
  if (!Array.isArray(list)) return [];
  return list.map((c) => {
    const o = obj(c);
    return { type: str(o?.['type']), status: str(o?.['status']), reason: str(o?.['reason']), message: str(o?.['message']) };
  });
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
    ...refOf(raw),
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

/**
 * Projects a Pod to its identity, labels, the install's own annotations, and the facts of
 * {@link projectPodFacts}, with its requests beside it while it waits for a node.
 */
export function projectPod(raw: unknown): PodRead {
  const meta = obj(obj(raw)?.['metadata']);
  const annotations = stringMap(meta?.['annotations'], (key) => key.startsWith(INSTALL_ANNOTATION_PREFIX));
  const { facts, requests } = projectPodFacts(raw);
  const pod: Pod = { ...refOf(raw), labels: stringMap(meta?.['labels']), annotations, ...facts };
  return requests === undefined ? { pod } : { pod, requests };
}

/**
 * The pod of `read` with the values pods share (namespace, labels, annotations, phase, node, service
 * account) taken from `interner`: for the pods a run keeps, after it has decided to keep them.
 */
export function sharePod(read: PodRead, interner: Interner): PodRead {
  const { pod } = read;
  const shared: Pod = {
    ...pod,
    namespace: interner.string(pod.namespace),
    labels: interner.map(pod.labels),
    annotations: interner.map(pod.annotations),
    ...(pod.phase === undefined ? {} : { phase: interner.string(pod.phase) }),
    ...(pod.nodeName === undefined ? {} : { nodeName: interner.string(pod.nodeName) }),
    ...(pod.serviceAccountName === undefined ? {} : { serviceAccountName: interner.string(pod.serviceAccountName) }),
  };
  return read.requests === undefined ? { pod: shared } : { pod: shared, requests: read.requests };
}

/**
 * Projects a core/v1 Event; its time is the first set of the fields the Event API defines for it.
 * Undefined for an Event `wanted` turns down (by its reason and the Kind it is about): it is dropped
 * as it is read, before anything else of it is looked at.
 */
export function projectEvent(
  raw: unknown,
  wanted: (reason: string, involvedKind: string) => boolean = () => true,
  interner = new Interner(0),
): EventRecord | undefined {
  const o = obj(raw);
  const involved = obj(o?.['involvedObject']);
  const reason = str(o?.['reason']);
  if (!wanted(reason, str(involved?.['kind']))) return undefined;
  const series = obj(o?.['series']);
  const meta = obj(o?.['metadata']);
  const time =
    optStr(series?.['lastObservedTime']) ??
    optStr(o?.['lastTimestamp']) ??
    optStr(o?.['eventTime']) ??
    optStr(meta?.['creationTimestamp']) ??
    '';
  return {
    reason: interner.string(reason),
    message: interner.string(str(o?.['message'])),
    time: interner.string(time),
    involved: {
      kind: interner.string(str(involved?.['kind'])),
      namespace: interner.string(str(involved?.['namespace'])),
      name: str(involved?.['name']),
      uid: str(involved?.['uid']),
    },
  };
}

/** Projects a CacheTenant to its tenant ID, quota, entry count and conditions. */
export function projectCacheTenant(raw: unknown): CacheTenant {
  const spec = obj(obj(raw)?.['spec']);
  const status = obj(obj(raw)?.['status']);
  const max = optInt(obj(spec?.['quota'])?.['maxIndexEntries']);
  const entries = optInt(status?.['indexEntries']);
  const suppress = suppressAnnotation(raw);
  return {
    ...refOf(raw),
    ...(suppress === undefined ? {} : { suppress }),
    tenantID: str(spec?.['tenantID']),
    ...(max === undefined ? {} : { maxIndexEntries: max }),
    ...(entries === undefined ? {} : { indexEntries: entries }),
    conditions: conditionsOf(status),
  };
}

/** A CachePolicy is counted, never read: its identity is enough. */
export function projectCachePolicy(raw: unknown): CachePolicy {
  return refOf(raw);
}

/** A Namespace with a suppression annotation; undefined (dropped as it is read) for any other. */
export function projectNamespace(raw: unknown): NamespaceRecord | undefined {
  const suppress = suppressAnnotation(raw);
  return suppress === undefined ? undefined : { name: str(obj(obj(raw)?.['metadata'])?.['name']), suppress };
}
