import { INJECTED_BY, INJECTED_BY_UID, INJECTED_EVENT_REASON } from '../cluster/kinds/install.ts';
import { hasSelector } from '../cluster/kinds/label-selector.ts';
import { podIndex, type PodIndex } from '../cluster/state/pod-index.ts';

import { goQuote, goQuoteList } from '../go/quote.ts';
import type { Finding } from '../report/finding.ts';
import { API001 } from './api-read.ts';
import { READS } from '../cluster/state/reads.ts';
import { readFailedMessage } from './run.ts';
import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';
import { byteCompare } from './helpers.ts';
import type { CacheBackend } from '../cluster/kinds/cache-backend.ts';
import type { EventRecord } from '../cluster/kinds/event.ts';
import type { Pod } from '../cluster/kinds/pod.ts';

const CODES = {
  API001,
  EP001: {
    status: 'WARN',
    meaning: 'An engine pod selected by a CacheBackend carries no injection marker.',
    hint: "Restart the pod's workload (kubectl rollout restart) so that the mutating webhook sees it; if it stays uninjected, check the webhook's configuration, its Service and the controller's logs.",
    fix: '1. Recreate the pod so the mutating webhook sees it: kubectl -n <namespace> rollout restart deployment <engine workload>, or delete the pod. 2. If the new pod is still not injected, check the pod webhook: kubectl get mutatingwebhookconfigurations, its Service and the controller that serves it. It fails open, so a webhook that was down when the pod was created leaves it uninjected without an error. 3. If the pod was opted out on purpose (the inferencecache.io/skip-inject annotation), suppress EP001 for it.',
  },
  EP002: {
    status: 'OK',
    meaning: 'An engine pod selected by a CacheBackend was injected (validated annotation or Event).',
    hint: 'Nothing to do.',
    fix: "Nothing needs doing: the pod carries proof that its CacheBackend injected it. New pods stay injected as long as the controller's webhook is up when they are created.",
  },
  EP003: {
    status: 'WARN',
    meaning: 'An engine pod is selected by more than one CacheBackend in its namespace.',
    hint: 'Make the engineSelectors of the CacheBackends in that namespace disjoint, so each engine pod is served by exactly one backend.',
    fix: "1. List the backends of the namespace with their selectors: kubectl -n <namespace> get cachebackends -o custom-columns=NAME:.metadata.name,SELECTOR:.spec.engineSelector.matchLabels. 2. Change the engineSelectors, or the pods' labels, so that each engine pod matches exactly one backend; admission refuses a new pod that matches several. 3. Restart the affected workloads so their pods are injected by that one backend.",
  },
} as const satisfies Record<string, CodeDeclaration>;

function hasValidAnnotation(pod: Pod, backend: CacheBackend): boolean {
  const by = pod.annotations[INJECTED_BY] ?? '';
  return by !== '' && by === `${pod.namespace}/${backend.name}` && backend.uid !== '' && pod.annotations[INJECTED_BY_UID] === backend.uid;
}

/**
 * EnginePodInjectionAudit: every pod selected by exactly one CacheBackend of its namespace must carry
 * proof of injection: the annotation pair naming that backend and its uid, or an injection Event
 * recorded for the pod's current uid. A pod selected by several backends is ambiguous. Pods and Events
 * are looked at only when some backend has a selector. Without Events at all (files that hold none),
 * the annotation still proves injection (EP002, EP003); only EP001, which needs the absence of an
 * Event, is left undecided.
 */
export const enginePodInjectionAudit = defineCheck({
  name: 'EnginePodInjectionAudit',
  codes: CODES,
  reads: { cacheBackends: 'items', selectedPods: 'items', injectionEvents: 'partial' },
  probes: {},
  judge({ state }, emit) {
    const backends = state.cacheBackends;
    if (!backends.some((b) => hasSelector(b.matchLabels))) return [];
    const selected = state.selectedPods;
    const events = state.injectionEvents;
    if (events?.ok === false) return [emit('API001', READS.injectionEvents.kind, readFailedMessage('injectionEvents', events.error))];
    return judgePods(emit, selected, events?.items, podIndex(selected, backends));
  },
});

/** The finding of each selected pod, in list order; without `injections` (none given), no EP001. */
function judgePods(
  emit: EmitFor<typeof CODES>,
  selected: readonly Pod[],
  injections: readonly EventRecord[] | undefined,
  index: PodIndex,
): Finding[] {
  const injectedUids = new Set((injections ?? []).filter((e) => e.involved.uid !== '').map((e) => e.involved.uid));

  const findings: Finding[] = [];
  for (const pod of selected) {
    const selecting = index.selectorsOf(pod);
    const candidates = selecting.length < 2 ? selecting : [...selecting].sort((x, y) => byteCompare(x.name, y.name));
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
    } else if (injections !== undefined) {
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
