/**
 * One attempt of a run: gather what the checks declare and probe the server side by side under the
 * attempt's deadline (`--timeout`; each probe with its own, shorter one), dial the published
 * endpoints, then judge.
 *
 * @module
 */

import type { DoctorOptions } from '../cli/options.ts';
import type { KubeApi } from '../cluster/api.ts';
import { gatherClusterState } from '../cluster/gather.ts';
import type { DoctorPod } from '../cluster/pod-identity.ts';
import type { ClusterState } from '../cluster/state.ts';
import { judgeByCheck, type RunPlan } from '../checks/registry.ts';
import type { ProbeResults } from '../probes/results.ts';
import { admissionGate, type SettleWindow } from '../probes/settle.ts';
import type { Finding } from '../report/finding.ts';
import type { PodFiles } from './environment.ts';
import { budgetUntil, dialEndpoints, probeServer } from './probe-plan.ts';
import { inSlices } from './time-slices.ts';

/** What stays the same from one attempt to the next. */
export interface AttemptContext {
  readonly options: DoctorOptions;
  readonly api: KubeApi;
  readonly plan: RunPlan;
  readonly self: DoctorPod | undefined;
  readonly files: PodFiles;
  readonly clock: () => Date;
  /** Aborted when the process is told to stop (not at `--timeout`: a run past it still judges what it read). */
  readonly interrupt: AbortSignal | undefined;
  /** The settle window of the doctor's own pod; absent outside a pod, where no probe waits. */
  readonly settle: SettleWindow | undefined;
}

/** When an attempt started (its reference instant) and the signal that ends it at `--timeout`. */
export interface AttemptStart {
  readonly now: Date;
  readonly signal: AbortSignal;
}

/** The findings of one attempt, before suppression; what it gathered (the annotations); its warnings. */
export interface AttemptResult {
  readonly findings: Finding[];
  readonly state: ClusterState;
  readonly warnings: string[];
}

/** Whether some list of the state was read (the API server answered at least that). */
function someListRead(state: ClusterState): boolean {
  return Object.values(state).some((read: unknown) => typeof read === 'object' && read !== null && 'ok' in read && read.ok === true);
}

/** Runs one attempt started at `start`. */
export async function attempt(context: AttemptContext, start: AttemptStart): Promise<AttemptResult> {
  const { options, api, plan, self, files, clock, interrupt, settle } = context;
  const { now, signal } = start;
  const warnings: string[] = [];
  const budget = budgetUntil(now.getTime() + options.timeoutMs, clock);
  const gate = settle === undefined || now.getTime() >= settle.endsMs ? undefined : admissionGate(settle, clock, signal);
  const serverProbes = plan.probes.has('server') ? probeServer(options, api, files, budget, signal, warnings, gate) : undefined;
  const state = await gatherClusterState(
    api,
    { reads: plan.reads, namespace: options.namespace, ...(self === undefined ? {} : { self }) },
    signal,
  );
  const dials = plan.probes.has('dials') ? await dialEndpoints(state, budget, signal, gate) : undefined;
  const server = await serverProbes;
  const probes: ProbeResults = { ...(server === undefined ? {} : { server }), ...(dials === undefined ? {} : { dials }) };
  // Check by check, so that the run notices an interrupt between two (see time-slices.ts).
  const input = { state, probes, now, namespace: options.namespace, ...(self === undefined ? {} : { self }) };
  const findings: Finding[] = [];
  const judging = function* () {
    for (const found of judgeByCheck(input)) {
      findings.push(...found);
      yield;
    }
  };
  await inSlices(judging(), interrupt, clock);
  if (state.namespaces?.ok === false && someListRead(state)) {
    // Said only when other reads got through: an unreachable API server is reported by the checks.
    warnings.push(`suppression annotations on Namespaces were not applied: reading the Namespaces failed: ${state.namespaces.error}`);
  }
  return { findings, state, warnings };
}
