import { NO_MATCH_EVENT_REASON } from '../cluster/kinds/install.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration } from './check.ts';
import { timeOf } from './helpers.ts';

const CODES = {
  API001,
  OP001: {
    status: 'WARN',
    meaning: 'A pod recorded a NoMatchingCacheBackend Event in the last 24 hours.',
    hint: 'The pod asked for the cache but no CacheBackend of its namespace selects it: add a CacheBackend whose engineSelector matches its labels, or remove the label that asks for the cache.',
    fix: "1. Read the Event: kubectl -n <namespace> get events --field-selector reason=NoMatchingCacheBackend. 2. The pod asked for the cache but no CacheBackend of its namespace selects it: create one whose spec.engineSelector.matchLabels match the pod's labels, or correct the labels in the pod's template. 3. If the pod should not use the cache, remove what asks for it. The finding goes once no such Event is younger than 24 hours.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/** How far back OrphanPodCheck looks, inclusive at the boundary. */
export const ORPHAN_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * OrphanPodCheck: one finding per NoMatchingCacheBackend Event about a Pod in the last 24 hours. Each
 * Event is read once (one Event API view), so each is counted once.
 */
export const orphanPodCheck = defineCheck({
  name: 'OrphanPodCheck',
  codes: CODES,
  reads: { noMatchEvents: 'items' },
  probes: {},
  judge({ state, now }, emit) {
    const since = now.getTime() - ORPHAN_WINDOW_MS;
    return state.noMatchEvents
      .filter((e) => {
        const at = timeOf(e.time);
        return at !== undefined && at >= since;
      })
      .map((e) =>
        emit(
          'OP001',
          `pod/${e.involved.namespace}/${e.involved.name}`,
          `the pod has a ${NO_MATCH_EVENT_REASON} Event (LikelyOperatorMisconfiguration): ${e.message}`,
        ),
      );
  },
});
