import { emitterFor, type Finding } from '../report/finding.ts';
import { timeOf } from './helpers.ts';
import type { CheckInput } from './input.ts';

const emit = emitterFor('OrphanPodCheck');

/** Event reason for a pod that asked for the cache but matched no CacheBackend. */
export const NO_MATCH_EVENT_REASON = 'NoMatchingCacheBackend';
/** How far back OrphanPodCheck looks, inclusive at the boundary. */
export const ORPHAN_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * OrphanPodCheck: one finding per NoMatchingCacheBackend Event about a Pod in the last 24 hours. Each
 * Event is read once (one Event API view), so each is counted once.
 */
export function orphanPodCheck({ state, now }: CheckInput): Finding[] {
  const { events } = state;
  if (!events.ok) return [emit('API001', 'Event', `listing Event objects failed: ${events.error}`)];
  const since = now.getTime() - ORPHAN_WINDOW_MS;
  return events.items
    .filter((e) => {
      if (e.reason !== NO_MATCH_EVENT_REASON || e.involved.kind !== 'Pod') return false;
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
}
