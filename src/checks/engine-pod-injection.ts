import type { CacheBackend, Pod } from '../cluster/state.ts';
import { emitterFor, type Finding } from '../report/finding.ts';
import { goQuote, goQuoteList } from '../report/gofmt.ts';
import { byteCompare, hasSelector, selectorMatches } from './helpers.ts';
import type { CheckInput } from './input.ts';

const emit = emitterFor('EnginePodInjectionAudit');

/** Annotations the pod webhook stamps on an engine pod it injected. */
export const INJECTED_BY = 'inferencecache.io/injected-by';
export const INJECTED_BY_UID = 'inferencecache.io/injected-by-uid';
/** Event reason the controller records once it validated a pod's injection annotations. */
export const INJECTED_EVENT_REASON = 'InjectedByCacheBackend';

function hasValidAnnotation(pod: Pod, backend: CacheBackend): boolean {
  const by = pod.annotations[INJECTED_BY] ?? '';
  return (
    by !== '' &&
    by === `${pod.namespace}/${backend.name}` &&
    backend.uid !== '' &&
    pod.annotations[INJECTED_BY_UID] === backend.uid
  );
}

/**
 * EnginePodInjectionAudit: every pod selected by exactly one CacheBackend of its namespace must carry
 * proof of injection: the annotation pair naming that backend and its uid, or an injection Event
 * recorded for the pod's current uid. A pod selected by several backends is ambiguous.
 */
export function enginePodInjectionAudit({ state }: CheckInput): Finding[] {
  const { cacheBackends, pods, events } = state;
  if (!cacheBackends.ok) return [emit('API001', 'CacheBackend', `listing CacheBackend objects failed: ${cacheBackends.error}`)];
  const byNamespace = new Map<string, CacheBackend[]>();
  for (const b of cacheBackends.items) {
    if (!hasSelector(b.matchLabels)) continue;
    const group = byNamespace.get(b.namespace) ?? [];
    group.push(b);
    byNamespace.set(b.namespace, group);
  }
  if (byNamespace.size === 0) return [];
  for (const group of byNamespace.values()) group.sort((x, y) => byteCompare(x.name, y.name));

  if (!pods.ok) return [emit('API001', 'Pod', `listing Pod objects failed: ${pods.error}`)];
  if (!events.ok) return [emit('API001', 'Event', `listing Event objects failed: ${events.error}`)];
  const injectedUids = new Set(
    events.items
      .filter((e) => e.reason === INJECTED_EVENT_REASON && e.involved.kind === 'Pod' && e.involved.uid !== '')
      .map((e) => e.involved.uid),
  );

  const findings: Finding[] = [];
  for (const pod of pods.items) {
    const candidates = (byNamespace.get(pod.namespace) ?? []).filter((b) => selectorMatches(b.matchLabels, pod.labels));
    const resource = `pod/${pod.namespace}/${pod.name}`;
    const [only, ...others] = candidates;
    if (only === undefined) continue;
    if (others.length > 0) {
      findings.push(
        emit(
          'EP003',
          resource,
          `engine pod is selected by several CacheBackends ${goQuoteList(candidates.map((b) => b.name))} in namespace ${goQuote(pod.namespace)}: none is chosen implicitly, and admission of a new pod would refuse this overlap. Make the engineSelectors disjoint`,
        ),
      );
    } else if (hasValidAnnotation(pod, only)) {
      findings.push(
        emit(
          'EP002',
          resource,
          `engine pod was injected by CacheBackend ${goQuote(`${pod.namespace}/${only.name}`)}: its ${INJECTED_BY} annotation checks out against the backend's uid`,
        ),
      );
    } else if (injectedUids.has(pod.uid)) {
      findings.push(
        emit(
          'EP002',
          resource,
          `engine pod is selected by CacheBackend ${goQuote(only.name)} and an ${INJECTED_EVENT_REASON} Event exists for its current uid, so the cache plane injected it. The Event does not say which backend did; the ${INJECTED_BY} annotation, which would, is missing or does not check out`,
        ),
      );
    } else {
      findings.push(
        emit(
          'EP001',
          resource,
          `engine pod is selected by CacheBackend ${goQuote(only.name)} but shows no sign of injection (no ${INJECTED_BY} annotation that checks out against the backend's uid, no ${INJECTED_EVENT_REASON} Event for its uid), so it may run without the cache. Recreate it (for example kubectl rollout restart) so the mutating webhook sees it again`,
        ),
      );
    }
  }
  return findings;
}
