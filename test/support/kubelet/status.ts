/**
 * The pod status a kubelet would write, computed from what the stand-in knows about the pod's
 * containers. Pure: the phase follows the kubelet's `getPhase`, and the conditions its
 * `GeneratePod*Condition` functions (the same reasons and messages), including readiness gates:
 * a pod is Ready only when all containers are ready and every gate's condition is True.
 *
 * @module
 */

import type { ContainerState, ContainerStatus, Pod, PodCondition, PodStatus } from './types.ts';

/** What the stand-in tracks per container. */
export interface ContainerRuntime {
  readonly name: string;
  readonly image: string;
  state: ContainerState;
  lastState: ContainerState;
  restartCount: number;
  ready: boolean;
  started: boolean;
  containerID?: string;
}

/** What the stand-in tracks per pod. */
export interface PodRuntime {
  readonly hostIP: string;
  startTime: string;
  sandboxReady: boolean;
  podIP?: string;
  init: ContainerRuntime[];
  containers: ContainerRuntime[];
  /** The pod is being deleted: once its containers stop it is terminal whatever its restart policy. */
  deleting: boolean;
  /** Set when the pod failed as a whole (e.g. DeadlineExceeded). */
  failure?: { reason: string; message: string };
}

/** The kubelet's `getPhase`, for regular init containers and regular containers. */
export function podPhase(pod: Pod, rt: PodRuntime): NonNullable<PodStatus['phase']> {
  if (rt.failure !== undefined) return 'Failed';
  const policy = pod.spec.restartPolicy ?? 'Always';
  if (rt.deleting && ![...rt.init, ...rt.containers].some((c) => c.state.running !== undefined)) {
    // A deleted pod whose processes are gone is terminal, even if some containers never ran.
    return rt.containers.every((c) => c.state.terminated?.exitCode === 0) ? 'Succeeded' : 'Failed';
  }
  let initPending = false;
  for (const c of rt.init) {
    const term = c.state.terminated ?? (c.state.waiting !== undefined ? c.lastState.terminated : undefined);
    if (term === undefined) initPending = true;
    else if (term.exitCode !== 0) {
      if (policy === 'Never') return 'Failed';
      initPending = true;
    }
  }
  if (initPending) return 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of rt.containers) {
    if (c.state.running !== undefined) running++;
    else if (c.state.terminated !== undefined) {
      stopped++;
      if (c.state.terminated.exitCode === 0) succeeded++;
    } else if (c.lastState.terminated !== undefined) stopped++;
    else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped === 0) return 'Pending';
  if (rt.deleting || policy === 'Never') return stopped === succeeded ? 'Succeeded' : 'Failed';
  if (policy === 'Always') return 'Running';
  return stopped === succeeded ? 'Succeeded' : 'Running';
}

/** Go's `%s` of a []string. */
function goList(names: readonly string[]): string {
  return `[${names.join(' ')}]`;
}

type OwnCondition = Omit<PodCondition, 'lastTransitionTime' | 'lastProbeTime'>;

function initializedCondition(rt: PodRuntime, phase: string): OwnCondition {
  const incomplete = rt.init.filter((c) => c.state.terminated?.exitCode !== 0).map((c) => c.name);
  if (incomplete.length === 0) return { type: 'Initialized', status: 'True' };
  if (phase === 'Succeeded') return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  if (rt.containers.some((c) => c.started || c.state.terminated !== undefined || c.restartCount > 0))
    return { type: 'Initialized', status: 'True' };
  return {
    type: 'Initialized',
    status: 'False',
    reason: 'ContainersNotInitialized',
    message: `containers with incomplete status: ${goList(incomplete)}`,
  };
}

function containersReadyCondition(rt: PodRuntime, phase: string): OwnCondition {
  if (phase === 'Succeeded') return { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: 'PodFailed' };
  const unready = rt.containers.filter((c) => !c.ready).map((c) => c.name);
  if (unready.length > 0)
    return {
      type: 'ContainersReady',
      status: 'False',
      reason: 'ContainersNotReady',
      message: `containers with unready status: ${goList(unready)}`,
    };
  return { type: 'ContainersReady', status: 'True' };
}

function readyCondition(pod: Pod, containersReady: OwnCondition): OwnCondition {
  if (containersReady.status !== 'True') return { ...containersReady, type: 'Ready' };
  const current = pod.status?.conditions ?? [];
  const unready: string[] = [];
  for (const gate of pod.spec.readinessGates ?? []) {
    const c = current.find((x) => x.type === gate.conditionType);
    if (c === undefined) unready.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    else if (c.status !== 'True') unready.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`);
  }
  if (unready.length > 0) return { type: 'Ready', status: 'False', reason: 'ReadinessGatesNotReady', message: unready.join(', ') };
  return { type: 'Ready', status: 'True' };
}

function containerStatus(c: ContainerRuntime): ContainerStatus {
  return {
    name: c.name,
    image: c.image,
    imageID: `standin-image://${c.image}`,
    ...(c.containerID === undefined ? {} : { containerID: c.containerID }),
    ready: c.ready,
    started: c.started,
    restartCount: c.restartCount,
    state: c.state,
    lastState: c.lastState,
  };
}

/** The status to write for `pod`; condition transition times carry over while a status is unchanged. */
export function buildPodStatus(pod: Pod, rt: PodRuntime, now: string): PodStatus {
  const phase = podPhase(pod, rt);
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const containersReady = containersReadyCondition(rt, phase);
  const own: OwnCondition[] = [
    { type: 'PodReadyToStartContainers', status: rt.sandboxReady && !terminal ? 'True' : 'False' },
    initializedCondition(rt, phase),
    containersReady,
    readyCondition(pod, containersReady),
  ];
  const previous = pod.status?.conditions ?? [];
  const conditions: PodCondition[] = own.map((c) => {
    const before = previous.find((p) => p.type === c.type);
    const lastTransitionTime =
      before !== undefined && before.status === c.status && before.lastTransitionTime !== undefined ? before.lastTransitionTime : now;
    return { ...c, lastProbeTime: null, lastTransitionTime };
  });
  const status: PodStatus = {
    phase,
    conditions,
    hostIP: rt.hostIP,
    hostIPs: [{ ip: rt.hostIP }],
    startTime: rt.startTime,
    containerStatuses: rt.containers.map(containerStatus),
  };
  if (rt.sandboxReady && rt.podIP !== undefined) {
    status.podIP = rt.podIP;
    status.podIPs = [{ ip: rt.podIP }];
  }
  if (rt.init.length > 0) status.initContainerStatuses = rt.init.map(containerStatus);
  if (rt.failure !== undefined) {
    status.reason = rt.failure.reason;
    status.message = rt.failure.message;
  }
  return status;
}
