import type { CacheBackend, Pod, Read } from '../cluster/state.ts';
import { emitterFor, type Finding } from '../report/finding.ts';
import { goDuration, goQuote, roundToSecondMs } from '../report/gofmt.ts';
import { conditionOf, hasSelector, selectorMatches, timeOf } from './helpers.ts';
import type { CheckInput } from './input.ts';

const emit = emitterFor('CacheBackendHealth');

/** KV events older than this mean the engine stopped reporting. Fixed, as upstream. */
export const STALE_WINDOW_MS = 2 * 60 * 1000;

/** An External backend is judged only on readiness and its endpoint; anything else is managed. */
function isExternal(b: CacheBackend): boolean {
  return b.remoteStorage?.ownership === 'External';
}

function resourceOf(b: CacheBackend): string {
  return `cachebackend/${b.namespace}/${b.name}`;
}

function readyAxis(b: CacheBackend): Finding[] {
  const ready = conditionOf(b.conditions, 'Ready');
  if (ready === undefined) {
    return [emit('CB001', resourceOf(b), 'no Ready condition yet: the controller has not reconciled this backend, or has never seen a KV event for it')];
  }
  if (ready.status === 'True') return [];
  return [emit('CB001', resourceOf(b), `Ready=${ready.status} (reason ${ready.reason}): ${ready.message}`)];
}

/**
 * The matched-engine-pod count: the controller's `status.matchedEnginePods` when it has computed one,
 * otherwise a live count over the gathered pods of the backend's namespace.
 */
function selectorAxis(b: CacheBackend, pods: Read<Pod>): Finding[] {
  if (isExternal(b) || !hasSelector(b.matchLabels)) return [];
  let matched: number;
  if (b.matchedEnginePods !== undefined) {
    matched = b.matchedEnginePods;
  } else if (!pods.ok) {
    return [emit('API001', resourceOf(b), `the engine pods this backend selects could not be counted, so the selector check is inconclusive: ${pods.error}`)];
  } else {
    matched = pods.items.filter((p) => p.namespace === b.namespace && selectorMatches(b.matchLabels, p.labels)).length;
  }
  if (matched !== 0) return [];
  return [
    emit(
      'CB002',
      resourceOf(b),
      'no engine pod matches spec.engineSelector (matchedEnginePods is 0, LikelySelectorMismatch): the engine Deployment may be missing or scaled to zero, or its pod labels no longer match the selector',
    ),
  ];
}

function eventFreshnessAxis(b: CacheBackend, now: Date): Finding[] {
  if (isExternal(b)) return [];
  const first = timeOf(b.firstKVEventObservedAt);
  const last = timeOf(b.indexParticipation?.lastEventAt);
  if (first === undefined && last === undefined) {
    return [
      emit(
        'CB003',
        resourceOf(b),
        'no KV event has ever been observed (EngineNotReportingState): neither status.firstKVEventObservedAt nor status.indexParticipation.lastEventAt is set, so the engine may not publish KV events or the subscriber sidecar may be missing',
      ),
    ];
  }
  if (last === undefined) return [];
  const age = now.getTime() - last;
  if (age <= STALE_WINDOW_MS) return [];
  return [
    emit(
      'CB004',
      resourceOf(b),
      `the last KV event (status.indexParticipation.lastEventAt) is ${goDuration(roundToSecondMs(age))} old, beyond the ${goDuration(STALE_WINDOW_MS)} freshness window (EngineStale): KV events have stopped arriving`,
    ),
  ];
}

function functionalProbeAxis(b: CacheBackend): Finding[] {
  if (isExternal(b)) return [];
  const probe = conditionOf(b.conditions, 'FunctionalProbeOK');
  if (probe === undefined || probe.status === 'True') return [];
  return [
    emit(
      'CB007',
      resourceOf(b),
      `FunctionalProbeOK=${probe.status} (reason ${probe.reason}): the controller's end-to-end self-test of this backend is failing: ${probe.message}`,
    ),
  ];
}

function endpointAxis(b: CacheBackend, input: CheckInput): Finding[] {
  if (b.remoteStorage === undefined) return [];
  if (b.endpoint === undefined) {
    return [emit('CB005', resourceOf(b), 'status.remoteStorage.endpoint is empty: the remote tier has not published an address yet')];
  }
  const dial = input.probes.dials?.get(b.endpoint.value);
  if (dial === undefined || dial.ok) return [];
  return [emit('CB005', resourceOf(b), `${b.endpoint.field} ${goQuote(b.endpoint.value)} does not accept TCP connections: ${dial.error}`)];
}

function healthySummary(b: CacheBackend, dialed: boolean): string {
  const reach = dialed ? 'endpoint reachable' : 'endpoint present';
  if (isExternal(b)) return `External backend: Ready, ${reach}`;
  const matched = hasSelector(b.matchLabels) ? 'engine pods matched' : 'no engineSelector, so engine-pod matching does not apply';
  const prefixes = b.indexParticipation?.prefixCount ?? 0;
  const endpoint = b.remoteStorage === undefined ? 'host-only, so no remote endpoint applies' : reach;
  return `Ready, ${matched}, ${prefixes} prefix(es) indexed, ${endpoint}`;
}

/**
 * CacheBackendHealth: every backend is judged on readiness, selector matches, KV-event freshness, the
 * functional self-test and its remote endpoint, in that order; a backend with no finding gets CB006.
 */
export function cacheBackendHealth(input: CheckInput): Finding[] {
  const { cacheBackends, pods } = input.state;
  if (!cacheBackends.ok) return [emit('API001', 'CacheBackend', `listing CacheBackend objects failed: ${cacheBackends.error}`)];
  return cacheBackends.items.flatMap((b) => {
    const found = [
      ...readyAxis(b),
      ...selectorAxis(b, pods),
      ...eventFreshnessAxis(b, input.now),
      ...functionalProbeAxis(b),
      ...endpointAxis(b, input),
    ];
    return found.length > 0 ? found : [emit('CB006', resourceOf(b), healthySummary(b, input.probes.dials !== undefined))];
  });
}
