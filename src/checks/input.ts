import type { DoctorPod } from '../cluster/pod-identity.ts';
import type { ClusterState } from '../cluster/state.ts';
import type { ProbeResults } from '../probes/results.ts';

/**
 * Everything a check may look at. Checks are pure functions of this value: no I/O, no clock, no
 * process. `now` is read once at the start of the run so that every time window uses the same instant.
 */
export interface CheckInput {
  readonly state: ClusterState;
  readonly probes: ProbeResults;
  readonly now: Date;
  /** The `--namespace` scope; empty means all namespaces. */
  readonly namespace: string;
  /** The doctor's own pod (namespace and labels) when it runs in one; absent from a workstation. */
  readonly self?: DoctorPod;
}
