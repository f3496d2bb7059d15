import { isZero, type Count } from '../cluster/encoding/wire.ts';
import { formatGoDuration, roundToSecondMs } from '../go/duration.ts';
import { goQuote } from '../go/quote.ts';
import type { DialResult } from '../probes/results.ts';
import { settleNote } from './settle-note.ts';
import type { Finding } from '../report/finding.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';
import { hasSelector } from '../cluster/kinds/label-selector.ts';
import { podIndex } from '../cluster/state/pod-index.ts';
import { backendResource, conditionOf, isExternal, timeOf } from './helpers.ts';
import type { CacheBackend } from '../cluster/kinds/cache-backend.ts';
import type { Pod } from '../cluster/kinds/pod.ts';
import type { Read } from '../cluster/kinds/kind.ts';

const CODES = {
  API001,
  CB001: {
    status: 'WARN',
    meaning: 'The CacheBackend has no Ready condition, or it is not True.',
    hint: "Read the condition's reason and message (kubectl describe cachebackend); with no condition at all, check that the controller is running and reconciling this namespace.",
    fix: '1. Read the Ready condition: kubectl -n <namespace> describe cachebackend <name>; its reason and message say what the controller waits for (engine pods, the remote tier, a first KV event). 2. With no Ready condition at all, the controller has not reconciled the backend: check that a controller runs and leads (the CL findings) and read its logs (kubectl -n inference-cache-system logs deploy/inference-cache-controller-manager). 3. Fix what the reason names. Right after a deploy the controller needs a little while: doctor --wait 5m waits for it.',
  },
  CB002: {
    status: 'WARN',
    meaning: 'The CacheBackend engineSelector matches no engine pod.',
    hint: "Compare spec.engineSelector.matchLabels with the engine pods' labels (kubectl get pods -l …) and fix whichever drifted; an engine Deployment scaled to zero matches nothing either.",
    fix: "1. Show the selector: kubectl -n <namespace> get cachebackend <name> -o jsonpath='{.spec.engineSelector.matchLabels}'. 2. List what it selects: kubectl -n <namespace> get pods -l <key>=<value>; only pods of the backend's own namespace count. 3. If nothing matches, compare with the engine pods' labels (kubectl -n <namespace> get pods --show-labels) and correct whichever drifted: the engine workload's pod template labels or spec.engineSelector.matchLabels. 4. If the engine Deployment is missing or scaled to zero, create it or scale it up.",
  },
  CB003: {
    status: 'WARN',
    meaning: 'No KV event has ever been observed for the CacheBackend.',
    hint: 'Check that the engine publishes KV events (its KV-event flags) and that the subscriber sidecar was injected into the engine pods (see the EP findings).',
    fix: "1. Check that the engine pods were injected: read the EP findings of the run; recreate an EP001 pod (kubectl rollout restart of its workload) so it gets the KV-event subscriber sidecar. 2. Check that the controller was given a subscriber image (its --kvevent-subscriber-image argument): without one, no sidecar is injected. 3. Check that the engine publishes KV events, and read the subscriber sidecar's logs in an engine pod for connection errors. 4. A backend created moments ago may simply have seen no request yet: send one, or run the doctor with --wait.",
  },
  CB004: {
    status: 'WARN',
    meaning: 'The last KV event of the CacheBackend is older than the 2-minute freshness window.',
    hint: "Check the engine pods and their subscriber sidecars: restarts, crash loops or a network change often stop the event stream; the server's index for this backend is going stale.",
    fix: "1. Look at the backend's engine pods for restarts or crash loops: kubectl -n <namespace> get pods -l <key>=<value> (its engineSelector). 2. Read the subscriber sidecar's logs in an engine pod for lost connections to the engine or to the server. 3. If pods were replaced without injection (EP001), restart their workload so the webhook injects the sidecar again. 4. An engine without traffic publishes no events, so on a backend idle for over two minutes this is expected; suppress it there with the annotation inferencecache.io/doctor-suppress: CB004 on the CacheBackend.",
  },
  CB005: {
    status: 'WARN',
    meaning: 'The remote tier of the CacheBackend has no published endpoint, or it does not accept TCP connections.',
    hint: "Check the remote store (its Service, pods and port) and the endpoint the controller published in the backend's status; a missing endpoint means the controller has not provisioned the tier yet.",
    fix: "1. Empty endpoint: the controller has not published an address for the remote tier yet; for a managed tier read the RS findings and the RemoteStorageReady condition (kubectl -n <namespace> describe cachebackend <name>). 2. Refused or timed out dial: check the address in the backend's status. For a managed Redis, look at its Service and pods in the backend's namespace (kubectl -n <namespace> get svc,pods); for an External store, check that it is up and listening on that host and port. 3. If the engines reach the store but the doctor cannot, a NetworkPolicy or firewall on the doctor's path drops the dial; run the doctor from where the engines run.",
  },
  CB006: {
    status: 'OK',
    meaning: 'The CacheBackend passed every health axis.',
    hint: 'Nothing to do.',
    fix: 'Nothing needs doing: the backend is Ready, matches its engine pods, receives KV events, passes its self-test and its remote endpoint answers. Keeping the engine pods injected and the remote tier up keeps it so.',
  },
  CB007: {
    status: 'WARN',
    meaning: "The controller's functional self-test of the CacheBackend is failing.",
    hint: "Read the FunctionalProbeOK condition's message and the controller's logs: the end-to-end write and lookup through this backend fails even though its parts look healthy.",
    fix: "1. Read the FunctionalProbeOK condition: kubectl -n <namespace> describe cachebackend <name>; its reason and message say which step of the self-test failed. 2. Read the controller's logs about the backend (kubectl -n inference-cache-system logs deploy/inference-cache-controller-manager): the self-test writes and looks up through the server's /probe route. 3. Check the parts it crosses: the server (SV and PB findings) and the backend's remote tier (CB005, RS001). The condition turns True at the next self-test that passes.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/** KV events older than this mean the engine stopped reporting. Fixed, as upstream. */
export const STALE_WINDOW_MS = 2 * 60 * 1000;

function readyAxis(emit: EmitFor<typeof CODES>, b: CacheBackend): Finding[] {
  const ready = conditionOf(b.conditions, 'Ready');
  if (ready === undefined) {
    return [
      emit(
        'CB001',
        backendResource(b),
        'no Ready condition yet: the controller has not reconciled this backend, or has never seen a KV event for it',
      ),
    ];
  }
  if (ready.status === 'True') return [];
  return [emit('CB001', backendResource(b), `Ready=${ready.status} (reason ${ready.reason}): ${ready.message}`)];
}

/**
 * The matched-engine-pod count: the controller's `status.matchedEnginePods` when it has computed one,
 * otherwise a live count over the gathered pods of the backend's namespace.
 */
function selectorAxis(emit: EmitFor<typeof CODES>, b: CacheBackend, selected: Read<Pod>, backends: readonly CacheBackend[]): Finding[] {
  if (isExternal(b) || !hasSelector(b.matchLabels)) return [];
  let matched: Count;
  if (b.matchedEnginePods !== undefined) {
    matched = b.matchedEnginePods;
  } else if (!selected.ok) {
    return [
      emit(
        'API001',
        backendResource(b),
        `the engine pods this backend selects could not be counted, so the selector check is inconclusive: ${selected.error}`,
      ),
    ];
  } else {
    matched = podIndex(selected.items, backends).selectedBy(b).length;
  }
  if (!isZero(matched)) return [];
  return [
    emit(
      'CB002',
      backendResource(b),
      'no engine pod matches spec.engineSelector (matchedEnginePods is 0, LikelySelectorMismatch): the engine Deployment may be missing or scaled to zero, or its pod labels no longer match the selector',
    ),
  ];
}

function eventFreshnessAxis(emit: EmitFor<typeof CODES>, b: CacheBackend, now: Date): Finding[] {
  if (isExternal(b)) return [];
  const first = timeOf(b.firstKVEventObservedAt);
  const last = timeOf(b.indexParticipation?.lastEventAt);
  if (first === undefined && last === undefined) {
    return [
      emit(
        'CB003',
        backendResource(b),
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
      backendResource(b),
      `the last KV event (status.indexParticipation.lastEventAt) is ${formatGoDuration(roundToSecondMs(age))} old, beyond the ${formatGoDuration(STALE_WINDOW_MS)} freshness window (EngineStale): KV events have stopped arriving`,
    ),
  ];
}

function functionalProbeAxis(emit: EmitFor<typeof CODES>, b: CacheBackend): Finding[] {
  if (isExternal(b)) return [];
  const probe = conditionOf(b.conditions, 'FunctionalProbeOK');
  if (probe === undefined || probe.status === 'True') return [];
  return [
    emit(
      'CB007',
      backendResource(b),
      `FunctionalProbeOK=${probe.status} (reason ${probe.reason}): the controller's end-to-end self-test of this backend is failing: ${probe.message}`,
    ),
  ];
}

function endpointAxis(emit: EmitFor<typeof CODES>, b: CacheBackend, dials: ReadonlyMap<string, DialResult> | undefined): Finding[] {
  if (b.remoteStorage === undefined) return [];
  if (b.endpoint === undefined) {
    return [emit('CB005', backendResource(b), 'status.remoteStorage.endpoint is empty: the remote tier has not published an address yet')];
  }
  const dial = dials?.get(b.endpoint.value);
  if (dial === undefined || dial.ok) return [];
  const message = `${b.endpoint.field} ${goQuote(b.endpoint.value)} does not accept TCP connections: ${dial.error}`;
  return [emit('CB005', backendResource(b), `${message}${settleNote(dial.settling)}`)];
}

function healthySummary(b: CacheBackend, dials: ReadonlyMap<string, DialResult> | undefined): string {
  const settled = b.endpoint === undefined ? '' : settleNote(dials?.get(b.endpoint.value)?.settling);
  const reach = dials !== undefined ? `endpoint reachable${settled}` : 'endpoint present';
  if (isExternal(b)) return `External backend: Ready, ${reach}`;
  const matched = hasSelector(b.matchLabels) ? 'engine pods matched' : 'no engineSelector, so engine-pod matching does not apply';
  const prefixes = b.indexParticipation?.prefixCount ?? 0;
  const endpoint = b.remoteStorage === undefined ? 'host-only, so no remote endpoint applies' : reach;
  return `Ready, ${matched}, ${prefixes} prefix(es) indexed, ${endpoint}`;
}

/**
 * CacheBackendHealth: every backend is judged on readiness, selector matches, KV-event freshness, the
 * functional self-test and its remote endpoint, in that order; a backend with no finding gets CB006.
 * The selected pods are looked at only for a backend whose controller has not counted its engine pods yet.
 */
export const cacheBackendHealth = defineCheck({
  name: 'CacheBackendHealth',
  codes: CODES,
  reads: { cacheBackends: 'items', selectedPods: 'read' },
  probes: { dials: 'optional' },
  judge({ state, probes, now }, emit) {
    const { dials } = probes;
    return state.cacheBackends.flatMap((b) => {
      const found = [
        ...readyAxis(emit, b),
        ...selectorAxis(emit, b, state.selectedPods, state.cacheBackends),
        ...eventFreshnessAxis(emit, b, now),
        ...functionalProbeAxis(emit, b),
        ...endpointAxis(emit, b, dials),
      ];
      return found.length > 0 ? found : [emit('CB006', backendResource(b), healthySummary(b, dials))];
    });
  },
});
