import type { ContainerWaiting, NamedPort, Pod, PodRequests, ResourceList } from './state.ts';
import { arr, isEmpty, obj, optStr, resourceList, str, type WireObject } from './wire.ts';

/** The Pod fields beyond identity, labels and annotations; each is left out when the object has none. */
export type PodFacts = Omit<Pod, 'namespace' | 'name' | 'uid' | 'labels' | 'annotations'>;

/** A pod's facts, and what it asks of a node while it waits for one. */
export interface PodFactsRead {
  readonly facts: PodFacts;
  readonly requests?: PodRequests;
}

/** A container's requests, with its limits standing in for resources that have no request. */
function containerRequests(container: WireObject | undefined): ResourceList {
  const resources = obj(container?.['resources']);
  return { ...resourceList(resources?.['limits']), ...resourceList(resources?.['requests']) };
}

function requestsOf(spec: WireObject | undefined): PodRequests | undefined {
  const containers = arr(spec?.['containers']).map((c) => containerRequests(obj(c)));
  const initContainers = arr(spec?.['initContainers']).map((c) => ({
    requests: containerRequests(obj(c)),
    sidecar: str(obj(c)?.['restartPolicy']) === 'Always',
  }));
  const overhead = resourceList(spec?.['overhead']);
  const podLevel = resourceList(obj(spec?.['resources'])?.['requests']);
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
function unschedulableMessage(status: WireObject | undefined): string | undefined {
  const scheduled = arr(status?.['conditions'])
    .map(obj)
    .find((c) => str(c?.['type']) === 'PodScheduled');
  if (scheduled === undefined || str(scheduled['status']) !== 'False' || str(scheduled['reason']) !== 'Unschedulable') return undefined;
  return str(scheduled['message']);
}

function waitingOf(status: WireObject | undefined): ContainerWaiting[] {
  const all = ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'].flatMap((field) => arr(status?.[field]));
  return all.flatMap((raw) => {
    const s = obj(raw);
    const waiting = obj(obj(s?.['state'])?.['waiting']);
    if (waiting === undefined) return [];
    return [{ container: str(s?.['name']), image: str(s?.['image']), reason: str(waiting['reason']), message: str(waiting['message']) }];
  });
}

function namedPortsOf(spec: WireObject | undefined): NamedPort[] {
  const containers = [...arr(spec?.['initContainers']), ...arr(spec?.['containers'])];
  return containers.flatMap((c) =>
    arr(obj(c)?.['ports']).flatMap((raw) => {
      const p = obj(raw);
      const name = optStr(p?.['name']);
      const port = p?.['containerPort'];
      if (name === undefined || typeof port !== 'number' || !Number.isInteger(port)) return [];
      return [{ name, port, protocol: optStr(p?.['protocol']) ?? 'TCP' }];
    }),
  );
}

/** Whether a pod still waits for a node: Pending and not bound. Only such a pod needs room on one. */
export function isWaitingForNode(pod: { readonly phase?: string | undefined; readonly nodeName?: string | undefined }): boolean {
  return pod.phase === 'Pending' && pod.nodeName === undefined;
}

/**
 * Projects the facts of a Pod beyond its identity: its phase and binding, why it waits, its pull
 * secrets and its named ports; and, apart from them, its requests while it waits for a node (nothing
 * reads a running pod's requests, and a large cluster's running pods would each carry theirs for
 * nothing).
 */
export function projectPodFacts(raw: unknown): PodFactsRead {
  const spec = obj(obj(raw)?.['spec']);
  const status = obj(obj(raw)?.['status']);
  const phase = optStr(status?.['phase']);
  const nodeName = optStr(spec?.['nodeName']);
  const serviceAccountName = optStr(spec?.['serviceAccountName']) ?? optStr(spec?.['serviceAccount']);
  const pullSecrets = arr(spec?.['imagePullSecrets']).flatMap((r) => {
    const name = optStr(obj(r)?.['name']);
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
