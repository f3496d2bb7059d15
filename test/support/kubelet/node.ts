/**
 * The Node object of the stand-in and its heartbeats. A kubelet registers its Node, writes Ready and
 * its kubelet endpoint through `nodes/status`, and renews a Lease in `kube-node-lease` every 10 s;
 * kube-controller-manager's node lifecycle controller marks a node NotReady (and taints it
 * unreachable) when those renewals stop. kube-apiserver finds the kubelet for `pods/log` through
 * `status.addresses` and `status.daemonEndpoints.kubeletEndpoint.Port`.
 *
 * @module
 */

import * as os from 'node:os';
import { describeError } from '../../../src/text/errors.ts';
import { isStatus, type KubeApi } from './api.ts';
import { nowRfc3339 } from './types.ts';

/** What the Node advertises. */
export interface NodeOptions {
  readonly nodeName: string;
  /** Port of the stand-in's HTTPS server (logs). */
  readonly kubeletPort: number;
  /** Address kube-apiserver dials for logs; also the hostIP of every pod. */
  readonly address: string;
  readonly podCIDR?: string | undefined;
  /** How often the Lease is renewed (ms). */
  readonly leaseRenewMs: number;
  readonly log: (line: string) => void;
}

/** The registered node: its uid, and a way to stop heartbeating (and optionally delete it). */
export interface RegisteredNode {
  readonly uid: string;
  stop(deleteNode: boolean): Promise<void>;
}

const LEASE_NAMESPACE = 'kube-node-lease';
const LEASE_DURATION_SECONDS = 40;

/** metav1.MicroTime: RFC 3339 with microseconds. */
function microTime(at = Date.now()): string {
  return new Date(at).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function goArch(): string {
  const arch = os.arch();
  return arch === 'x64' ? 'amd64' : arch;
}

function nodeStatus(opts: NodeOptions, transition: string): Record<string, unknown> {
  const now = nowRfc3339();
  const condition = (type: string, status: string, reason: string, message: string): Record<string, string> => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: transition,
  });
  const resources = { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '20Gi' };
  return {
    capacity: resources,
    allocatable: resources,
    conditions: [
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
    ],
    addresses: [{ type: 'InternalIP', address: opts.address }],
    daemonEndpoints: { kubeletEndpoint: { Port: opts.kubeletPort } },
    nodeInfo: {
      machineID: '',
      systemUUID: '',
      bootID: '',
      kernelVersion: os.release(),
      osImage: 'kubelet stand-in',
      containerRuntimeVersion: 'standin://0.1.0',
      kubeletVersion: 'v0.0.0-standin',
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: goArch(),
    },
  };
}

async function ensureNode(api: KubeApi, opts: NodeOptions): Promise<string> {
  const body = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: opts.nodeName,
      labels: { 'kubernetes.io/hostname': opts.nodeName, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': goArch() },
    },
    spec: opts.podCIDR === undefined ? {} : { podCIDR: opts.podCIDR, podCIDRs: [opts.podCIDR] },
  };
  try {
    return (await api.post<{ metadata: { uid: string } }>('/api/v1/nodes', body)).metadata.uid;
  } catch (err) {
    if (!isStatus(err, 409)) throw err;
    opts.log(`node ${opts.nodeName} already registered; taking it over`);
    return (await api.get<{ metadata: { uid: string } }>(`/api/v1/nodes/${opts.nodeName}`)).metadata.uid;
  }
}

async function ensureLeaseNamespace(api: KubeApi): Promise<void> {
  try {
    await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LEASE_NAMESPACE } });
  } catch (err) {
    if (!isStatus(err, 409)) throw err;
  }
}

async function renewLease(api: KubeApi, opts: NodeOptions, nodeUid: string): Promise<void> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases/${opts.nodeName}`;
  try {
    await api.patch(
      path,
      { spec: { holderIdentity: opts.nodeName, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: microTime() } },
      'merge',
    );
  } catch (err) {
    if (!isStatus(err, 404)) throw err;
    await api.post(`/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases`, {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: opts.nodeName,
        namespace: LEASE_NAMESPACE,
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: opts.nodeName, uid: nodeUid }],
      },
      spec: { holderIdentity: opts.nodeName, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime: microTime() },
    });
  }
}

/**
 * Registers (or takes over) the Node, writes its status as Ready, creates its Lease, and keeps
 * renewing the Lease every `leaseRenewMs` and the Ready heartbeat every minute.
 */
export async function registerNode(api: KubeApi, opts: NodeOptions): Promise<RegisteredNode> {
  const uid = await ensureNode(api, opts);
  const transition = nowRfc3339();
  const writeStatus = (): Promise<unknown> =>
    api.patch(`/api/v1/nodes/${opts.nodeName}/status`, { status: nodeStatus(opts, transition) }, 'strategic');
  await writeStatus();
  await ensureLeaseNamespace(api);
  await renewLease(api, opts, uid);

  const report = (what: string) => (err: unknown) => opts.log(`${what} failed: ${describeError(err)}`);
  const leaseTimer = setInterval(() => void renewLease(api, opts, uid).catch(report('lease renewal')), opts.leaseRenewMs);
  const statusTimer = setInterval(() => void writeStatus().catch(report('node status heartbeat')), 60_000);
  leaseTimer.unref();
  statusTimer.unref();
  opts.log(`node ${opts.nodeName} registered (uid ${uid}), kubelet endpoint ${opts.address}:${opts.kubeletPort}`);

  return {
    uid,
    async stop(deleteNode: boolean) {
      clearInterval(leaseTimer);
      clearInterval(statusTimer);
      if (!deleteNode) return;
      for (const path of [
        `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases/${opts.nodeName}`,
        `/api/v1/nodes/${opts.nodeName}`,
      ]) {
        try {
          await api.delete(path);
        } catch (err) {
          if (!isStatus(err, 404)) report(`delete ${path}`)(err);
        }
      }
    },
  };
}
