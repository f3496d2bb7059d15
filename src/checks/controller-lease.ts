import type { ControllerLease } from '../cluster/kinds/lease.ts';
import { formatGoDuration, roundToSecondMs } from '../go/duration.ts';
import { goQuote } from '../go/quote.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration } from './check.ts';
import { timeOf } from './helpers.ts';

const CODES = {
  API001,
  CL001: {
    status: 'FAIL',
    meaning: 'No controller holds its leader Lease: the Lease has no holder, or it was not renewed for longer than it is valid.',
    hint: 'Check the controller Deployment (kubectl get deploy,pods -n <its namespace>): while no controller leads, CacheBackend statuses and the CacheIndex stop, policies are not pushed, CacheBackends are refused by the webhooks and new engine pods are not injected.',
    fix: '1. Check the controller: kubectl -n inference-cache-system get deploy,pods -l app.kubernetes.io/component=controller; scale it back up if it has 0 replicas. 2. A pod that crashes or stays Pending: read its logs (kubectl -n inference-cache-system logs deploy/inference-cache-controller-manager --previous) or its Events. 3. A pod that runs but does not renew: read its logs for leader-election errors; it needs get, create and update on leases in its namespace. 4. Until a controller leads, backend statuses and the cache index go stale, policies are not pushed, the webhooks refuse CacheBackends and new engine pods are not injected.',
  },
  CL002: {
    status: 'OK',
    meaning: 'A controller holds its leader Lease and renews it.',
    hint: 'Nothing to do.',
    fix: 'Nothing needs doing: a controller holds its leader Lease and renews it. Keeping at least one controller replica running keeps it so.',
  },
} as const satisfies Record<string, CodeDeclaration>;

/** The duration a Lease counts as held when it does not say (controller-runtime's default). */
const DEFAULT_LEASE_SECONDS = 15;
/**
 * How long a renewal may be late before the Lease counts as abandoned: four lease durations, and never
 * less than a minute, so that a leader change in progress or a skewed workstation clock is not a stopped
 * controller. A leader renews every few seconds.
 */
function staleAfterMs(lease: ControllerLease): number {
  const seconds = Number(lease.leaseDurationSeconds ?? DEFAULT_LEASE_SECONDS);
  const valid = Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_LEASE_SECONDS;
  return Math.max(60_000, 4 * valid * 1000);
}

/**
 * ControllerLease (beyond upstream): whether a controller is running and leading, from the Lease the
 * upstream controller renews while it leads (`--leader-elect`, on in its manifest). Neither doctor saw a
 * stopped controller before, only its effects (docs/deviations.md). Without the Lease (leader election
 * off, another controller build, or a scope that leaves its namespace out) the check says nothing.
 */
export const controllerLease = defineCheck({
  name: 'ControllerLease',
  codes: CODES,
  reads: { leases: 'items' },
  probes: {},
  judge({ state, now }, emit) {
    return state.leases.map((lease) => {
      const resource = `lease/${lease.namespace}/${lease.name}`;
      const renewed = timeOf(lease.renewTime);
      const holder = lease.holderIdentity;
      if (holder === undefined) return emit('CL001', resource, 'the leader Lease has no holder: no controller is leading');
      if (renewed === undefined) return emit('CL001', resource, `the leader Lease is held by ${goQuote(holder)} but has no renewTime`);
      const age = now.getTime() - renewed;
      const ago = formatGoDuration(roundToSecondMs(Math.max(0, age)));
      const bound = staleAfterMs(lease);
      if (age > bound)
        return emit(
          'CL001',
          resource,
          `the leader Lease was last renewed ${ago} ago, by ${goQuote(holder)}, beyond the ${formatGoDuration(bound)} it may be late: no controller is running and leading`,
        );
      return emit('CL002', resource, `the controller ${goQuote(holder)} leads, its Lease renewed ${ago} ago`);
    });
  },
});
