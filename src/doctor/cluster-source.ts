/**
 * The source of a live run: the cluster the kubeconfig names. Opening it loads the kubeconfig and
 * learns the doctor's own pod; each attempt gathers what the checks declare and probes the server side
 * by side under the attempt's deadline (`--timeout`; each probe with its own, shorter one), then dials
 * the published endpoints.
 *
 * @module
 */

import { CHECKS, planRun, type RunPlan } from '../checks/registry.ts';
import type { DoctorOptions } from '../cli/options.ts';
import { gatherClusterState } from '../cluster/gather/gather.ts';
import { readDoctorPod, type DoctorPod } from '../cluster/gather/pod-identity.ts';
import { KubeApi } from '../cluster/transport/kube-api.ts';
import { loadKubeConfig } from '../cluster/transport/kubeconfig.ts';
import type { ProbeResults } from '../probes/results.ts';
import { admissionGate, settleWindowFrom, type SettleWindow } from '../probes/settle.ts';
import type { AttemptStart } from './deadline.ts';
import type { PodFiles, RunEnvironment, RunObserver } from './environment.ts';
import type { Observation, OpenSource, RunSource } from './pipeline.ts';
import { budgetUntil, dialEndpoints, probeServer } from './probe-plan.ts';

/** What stays the same from one attempt of a live run to the next. */
interface ClusterContext {
  readonly options: DoctorOptions;
  readonly api: KubeApi;
  readonly plan: RunPlan;
  readonly self: DoctorPod | undefined;
  readonly files: PodFiles;
  readonly clock: () => Date;
  /** The settle window of the doctor's own pod; absent outside a pod, where no probe waits. */
  readonly settle: SettleWindow | undefined;
  readonly observer: RunObserver | undefined;
}

/** Gathers and probes for one attempt started at `start`. */
async function observe(context: ClusterContext, start: AttemptStart): Promise<Observation> {
  const { options, api, plan, self, files, clock, settle, observer } = context;
  const asked = { requests: api.stats.requests, errors: api.stats.errors };
  const timer = observer?.probe;
  const { now, signal } = start;
  const warnings: string[] = [];
  const budget = budgetUntil(now.getTime() + options.timeoutMs, clock);
  const gate = settle === undefined || now.getTime() >= settle.endsMs ? undefined : admissionGate(settle, clock, signal);
  const routes = plan.probes.has('routes');
  const serverProbes =
    plan.probes.has('server') || routes ? probeServer(options, api, files, { budget, signal, routes, timer }, warnings, gate) : undefined;
  const state = await gatherClusterState(
    api,
    { reads: plan.reads, namespace: options.namespace, ...(self === undefined ? {} : { self }) },
    signal,
  );
  const dials = plan.probes.has('dials') ? await dialEndpoints(state, budget, signal, gate, timer) : undefined;
  const probes: ProbeResults = { ...(await serverProbes), ...(dials === undefined ? {} : { dials }) };
  observer?.api(api.stats.requests - asked.requests, api.stats.errors - asked.errors);
  const input = { state, probes, now, namespace: options.namespace, ...(self === undefined ? {} : { self }) };
  return { input, findings: [], warnings };
}

/**
 * Opens the cluster: loads the kubeconfig and reads the doctor's own pod under the first attempt's
 * deadline. Every check runs; under `--config-only` those that require a probe find none and do not.
 *
 * @throws KubeConfigError when there is no cluster to talk to.
 */
export function clusterSource(options: DoctorOptions, environment: RunEnvironment): OpenSource {
  return async (first): Promise<RunSource> => {
    const { clock, files } = environment;
    const api = new KubeApi(await loadKubeConfig(options, environment.env, files.serviceAccountDir, first.signal), environment.env);
    const self = await readDoctorPod(environment.pod, options.podLabelsFile ?? files.podLabels, first.signal);
    // In a pod the doctor is the container's process, so its start is the container's.
    const settle = self === undefined || environment.started === undefined ? undefined : settleWindowFrom(environment.started);
    const { observer } = environment;
    const context: ClusterContext = { options, api, plan: planRun(options), self, files, clock, settle, observer };
    return { checks: CHECKS, observe: (start) => observe(context, start) };
  };
}
