/**
 * The Pods: what the checks read of one (identity, labels, the install's annotations, phase, binding,
 * why it waits, pull secrets, named ports) and, only while it waits for a node, what it asks of one.
 * A large cluster has tens of thousands of pods, so a pod is projected to these fields as it is read,
 * in JSON or in protobuf (`pod-protobuf.ts`), and no other field is kept.
 *
 * @module
 */

import { cutText } from '../../go/cut.ts';
import type { Wire } from '../../protobuf/schema.ts';
import { isEmpty, messageAt, messagesAt, numberAt, optStringAt, quantitiesAt, stringAt, stringMapAt, wireOf } from '../encoding/wire.ts';
import type { Interner } from '../../text/interner.ts';
import { CORE } from './access.ts';
import { INSTALL_ANNOTATION_PREFIX } from './install.ts';
import { defineKind, type ObjectRef } from './kind.ts';
import type { CONTAINER, POD_SPEC, POD_STATUS } from './pod-protobuf.ts';
import { POD, POD_LIST, decodePod } from './pod-protobuf.ts';
import { isWaitingForNode } from './pod-waiting.ts';

/** A Pod as the checks see it. Every optional field is absent when the object does not set it. */
export interface Pod extends ObjectRef {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** `status.phase`, e.g. `Pending`; NodeFit judges only pods still waiting for a node. */
  readonly phase?: string;
  /** `spec.nodeName`: set once the pod is bound, so the scheduler has already found it a node. */
  readonly nodeName?: string;
  /** `spec.serviceAccountName` (or the deprecated `spec.serviceAccount`), whose pull secrets also apply. */
  readonly serviceAccountName?: string;
  /** Names of `spec.imagePullSecrets`, in spec order, empty names dropped. */
  readonly imagePullSecrets?: readonly string[];
  /**
   * The scheduler's message when `PodScheduled` is False with reason `Unschedulable` (possibly empty);
   * absent otherwise.
   */
  readonly unschedulable?: string;
  /** Containers (init, regular, ephemeral) currently in a waiting state, with the kubelet's reason. */
  readonly waiting?: readonly ContainerWaiting[];
  /** Container ports that carry a name, which a NetworkPolicy may refer to instead of a number. */
  readonly namedPorts?: readonly NamedPort[];
}

/** Resource name → quantity exactly as written, e.g. `{ cpu: '500m', 'nvidia.com/gpu': '1' }`. */
export type ResourceList = Readonly<Record<string, string>>;

/**
 * The inputs of a pod's effective request, kept per container because the rule is not a plain sum:
 * init containers run one at a time, restartable (sidecar) init containers keep running beside the rest.
 */
export interface PodRequests {
  /**
   * Per regular container: its requests, with a limit standing in for a resource that has no request
   * (the API server defaults requests to limits, and objects from files may predate that).
   */
  readonly containers: readonly ResourceList[];
  /** Per init container, in order; `sidecar` when its `restartPolicy` is `Always`. */
  readonly initContainers: readonly { readonly requests: ResourceList; readonly sidecar: boolean }[];
  /** `spec.overhead`, added on top by the RuntimeClass. */
  readonly overhead?: ResourceList;
  /** `spec.resources.requests` (pod-level resources), which replace the aggregate for what they name. */
  readonly podLevel?: ResourceList;
}

/** A container waiting to start, e.g. reason `ImagePullBackOff`. */
export interface ContainerWaiting {
  readonly container: string;
  readonly image: string;
  readonly reason: string;
  readonly message: string;
}

/** A named container port. */
export interface NamedPort {
  readonly name: string;
  readonly port: number;
  /** `TCP` when the spec leaves it out. */
  readonly protocol: string;
}

/** One pod as the projection reads it: its record, and its requests while it waits for a node. */
export interface PodRead {
  readonly pod: Pod;
  readonly requests?: PodRequests;
}

/** Whether a pod has finished for good (phase Succeeded or Failed). */
export function isTerminated(pod: Pod): boolean {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed';
}

/** The Pod fields beyond identity, labels and annotations; each is left out when the object has none. */
export type PodFacts = Omit<Pod, 'namespace' | 'name' | 'uid' | 'labels' | 'annotations'>;

/** A pod's facts, and what it asks of a node while it waits for one. */
export interface PodFactsRead {
  readonly facts: PodFacts;
  readonly requests?: PodRequests;
}

type SpecWire = Wire<typeof POD_SPEC>;
type StatusWire = Wire<typeof POD_STATUS>;

/** A container's requests, with its limits standing in for resources that have no request. */
function containerRequests(container: Wire<typeof CONTAINER> | undefined): ResourceList {
  const resources = messageAt(container?.resources);
  return { ...quantitiesAt(resources?.limits), ...quantitiesAt(resources?.requests) };
}

function requestsOf(spec: SpecWire | undefined): PodRequests | undefined {
  const containers = messagesAt(spec?.containers).map(containerRequests);
  const initContainers = messagesAt(spec?.initContainers).map((c) => ({
    requests: containerRequests(c),
    sidecar: stringAt(c?.restartPolicy) === 'Always',
  }));
  const overhead = quantitiesAt(spec?.overhead);
  const podLevel = quantitiesAt(messageAt(spec?.resources)?.requests);
  const anything =
    containers.some((r) => !isEmpty(r)) || initContainers.some((c) => !isEmpty(c.requests)) || !isEmpty(overhead) || !isEmpty(podLevel);
  if (!anything) return undefined;
  return {
    containers,
    initContainers,
    ...(isEmpty(overhead) ? {} : { overhead }),
    ...(isEmpty(podLevel) ? {} : { podLevel }),
  };
}

/** The scheduler's verdict: present only for `PodScheduled=False` with reason `Unschedulable`. */
function unschedulableMessage(status: StatusWire | undefined): string | undefined {
  const scheduled = messagesAt(status?.conditions).find((c) => stringAt(c?.type) === 'PodScheduled');
  if (scheduled === undefined || stringAt(scheduled.status) !== 'False' || stringAt(scheduled.reason) !== 'Unschedulable') return undefined;
  return cutText(stringAt(scheduled.message));
}

function waitingOf(status: StatusWire | undefined): ContainerWaiting[] {
  const all = [
    ...messagesAt(status?.initContainerStatuses),
    ...messagesAt(status?.containerStatuses),
    ...messagesAt(status?.ephemeralContainerStatuses),
  ];
  return all.flatMap((s) => {
    const waiting = messageAt(messageAt(s?.state)?.waiting);
    if (waiting === undefined) return [];
    return [
      {
        container: stringAt(s?.name),
        image: stringAt(s?.image),
        reason: stringAt(waiting.reason),
        message: cutText(stringAt(waiting.message)),
      },
    ];
  });
}

function namedPortsOf(spec: SpecWire | undefined): NamedPort[] {
  const containers = [...messagesAt(spec?.initContainers), ...messagesAt(spec?.containers)];
  return containers.flatMap((c) =>
    messagesAt(c?.ports).flatMap((p) => {
      const name = optStringAt(p?.name);
      const port = numberAt(p?.containerPort);
      if (name === undefined || port === undefined || !Number.isInteger(port)) return [];
      return [{ name, port, protocol: optStringAt(p?.protocol) ?? 'TCP' }];
    }),
  );
}

/**
 * Projects the facts of a Pod beyond its identity: its phase and binding, why it waits, its pull
 * secrets and its named ports; and, apart from them, its requests while it waits for a node (nothing
 * reads a running pod's requests, and a large cluster's running pods would each carry theirs for
 * nothing).
 */
function projectPodFacts(pod: Wire<typeof POD> | undefined): PodFactsRead {
  const spec = messageAt(pod?.spec);
  const status = messageAt(pod?.status);
  const phase = optStringAt(status?.phase);
  const nodeName = optStringAt(spec?.nodeName);
  const serviceAccountName = optStringAt(spec?.serviceAccountName) ?? optStringAt(spec?.serviceAccount);
  const pullSecrets = messagesAt(spec?.imagePullSecrets).flatMap((r) => {
    const name = optStringAt(r?.name);
    return name === undefined ? [] : [name];
  });
  const requests = isWaitingForNode({ phase, nodeName }) ? requestsOf(spec) : undefined;
  const unschedulable = unschedulableMessage(status);
  const waiting = waitingOf(status);
  const namedPorts = namedPortsOf(spec);
  const facts: PodFacts = {
    ...(phase === undefined ? {} : { phase }),
    ...(nodeName === undefined ? {} : { nodeName }),
    ...(serviceAccountName === undefined ? {} : { serviceAccountName }),
    ...(pullSecrets.length === 0 ? {} : { imagePullSecrets: pullSecrets }),
    ...(unschedulable === undefined ? {} : { unschedulable }),
    ...(waiting.length === 0 ? {} : { waiting }),
    ...(namedPorts.length === 0 ? {} : { namedPorts }),
  };
  return requests === undefined ? { facts } : { facts, requests };
}

/**
 * Projects a Pod (its JSON form, as listed in JSON or decoded from protobuf) to its identity, labels,
 * the install's own annotations, and the facts of {@link projectPodFacts}, with its requests beside it
 * while it waits for a node. It reads only what the Pod's declaration (`pod-protobuf.ts`) declares.
 */
export function projectPod(raw: unknown): PodRead {
  const wire = wireOf(POD, raw);
  const meta = messageAt(wire?.metadata);
  const annotations = stringMapAt(meta?.annotations, (key) => key.startsWith(INSTALL_ANNOTATION_PREFIX));
  const { facts, requests } = projectPodFacts(wire);
  const pod: Pod = {
    namespace: stringAt(meta?.namespace),
    name: stringAt(meta?.name),
    uid: stringAt(meta?.uid),
    labels: stringMapAt(meta?.labels),
    annotations,
    ...facts,
  };
  return requests === undefined ? { pod } : { pod, requests };
}

/**
 * The pod of `read` with the values pods share (namespace, labels, annotations, phase, node, service
 * account) taken from `interner`: for the pods a run keeps, after it has decided to keep them.
 */
export function sharePod(read: PodRead, interner: Interner): PodRead {
  const { pod } = read;
  const shared: Pod = {
    ...pod,
    namespace: interner.string(pod.namespace),
    labels: interner.map(pod.labels),
    annotations: interner.map(pod.annotations),
    ...(pod.phase === undefined ? {} : { phase: interner.string(pod.phase) }),
    ...(pod.nodeName === undefined ? {} : { nodeName: interner.string(pod.nodeName) }),
    ...(pod.serviceAccountName === undefined ? {} : { serviceAccountName: interner.string(pod.serviceAccountName) }),
  };
  return read.requests === undefined ? { pod: shared } : { pod: shared, requests: read.requests };
}

/** The literal values of containers' `env`, which no check reads and which often hold what a Secret should. */
const ENV_VALUES = ['spec.initContainers[].env[].value', 'spec.containers[].env[].value', 'spec.ephemeralContainers[].env[].value'];

/** The command lines of every container, whose secret-looking flag values a dump masks. */
const COMMAND_LINES = ['initContainers', 'containers', 'ephemeralContainers'].flatMap((list) =>
  ['command', 'args'].map((field) => `spec.${list}[].${field}`),
);

/** The pods: listed once per run, kept as the views the checks declare (`state/pod-views.ts`). */
export const POD_KIND = defineKind({
  kind: 'Pod',
  access: { ...CORE, resource: 'pods', verbs: ['list'], namespaced: true },
  reads: 'views',
  project: projectPod,
  metadataFollowedBy: 'spec',
  protobuf: { list: POD_LIST, decode: decodePod },
  dump: {
    write: 'redacted',
    remove: ENV_VALUES,
    commandLines: COMMAND_LINES,
    why: "containers' literal env values and secret-looking flags often hold what a Secret should",
  },
});
