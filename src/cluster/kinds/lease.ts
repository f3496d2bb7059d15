import { obj, optInt, optStr, type Count } from '../encoding/wire.ts';
import { CONTROLLER_LEADER_LEASE } from './install.ts';
import { defineKind } from './kind.ts';

/** The controller's leader Lease: who holds it, when it was last renewed, for how long a renewal counts. */
export interface ControllerLease {
  readonly namespace: string;
  readonly name: string;
  readonly holderIdentity?: string;
  /** `spec.renewTime`, RFC 3339 with microseconds, as written. */
  readonly renewTime?: string;
  readonly leaseDurationSeconds?: Count;
}

/**
 * The controller's leader Lease, or undefined for any other Lease (node heartbeats, other controllers'
 * locks): those are dropped as they are read, so a cluster with thousands of nodes costs no memory.
 */
export function projectLease(raw: unknown): ControllerLease | undefined {
  const meta = obj(obj(raw)?.['metadata']);
  if (optStr(meta?.['name']) !== CONTROLLER_LEADER_LEASE) return undefined;
  const spec = obj(obj(raw)?.['spec']);
  const holderIdentity = optStr(spec?.['holderIdentity']);
  const renewTime = optStr(spec?.['renewTime']);
  const leaseDurationSeconds = optInt(spec?.['leaseDurationSeconds']);
  return {
    namespace: optStr(meta?.['namespace']) ?? '',
    name: CONTROLLER_LEADER_LEASE,
    ...(holderIdentity === undefined ? {} : { holderIdentity }),
    ...(renewTime === undefined ? {} : { renewTime }),
    ...(leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds }),
  };
}

/** The Leases, listed for the controller's leader Lease: whether a controller is running and leading. */
export const LEASE_KIND = defineKind({
  kind: 'Lease',
  access: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', verbs: ['list'], namespaced: true },
  reads: 'list',
  project: projectLease,
  dump: { write: 'whole' },
});
