/**
 * A kubelet stand-in for tests (there is no kubelet or container runtime on these machines): it
 * registers a Node, schedules the pods it is responsible for onto it, runs their containers as local
 * processes (images mapped to programs), materialises their volumes (ServiceAccount tokens by
 * TokenRequest, ConfigMaps, Secrets, downward API, emptyDir), gives them the in-cluster environment
 * and cluster DNS, writes their status as a kubelet does, and serves their logs to kube-apiserver.
 * See README.md next to this file. Test support only; never shipped.
 *
 * @module
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { describeError } from '../../../src/text/errors.ts';
import { connectApi, isStatus, type KubeApi } from './api.ts';
import { EventRecorder } from './events.ts';
import type { ImageMap } from './images.ts';
import { startLogsServer, type LogLookup } from './logs-server.ts';
import { registerNode } from './node.ts';
import { podIpAllocator } from './pod-ips.ts';
import { PodWorker } from './pod-worker.ts';
import { watchPods, type PodChange } from './pod-watch.ts';
import { selfSignedServing, type KubeletPki } from './pki.ts';
import { bindPod, shouldBind } from './scheduler.ts';
import { podKey, type Pod } from './types.ts';

export { doctorImage, type ImageCommand, type ImageMap } from './images.ts';
export { createKubeletPki, kubeletApiServerArgs, type KubeletPki } from './pki.ts';

/** How to start the stand-in. */
export interface KubeletStandinOptions {
  /** Admin credentials (a kubeconfig file or a loaded KubeConfig): the stand-in acts as kubelet and scheduler. */
  readonly kubeconfig: string | KubeConfig;
  /** The API server's URL as pods should reach it (KUBERNETES_SERVICE_HOST/PORT). Default: the kubeconfig's server. */
  readonly apiServer?: string;
  /** The cluster CA (PEM file), published as `kube-root-ca.crt` where kube-controller-manager has not. */
  readonly caFile: string;
  /** Default `standin-node`. Use a distinct name per stand-in sharing a control plane. */
  readonly nodeName?: string;
  /** Namespaces whose unbound pods are scheduled here; default: all. */
  readonly namespaces?: readonly string[];
  /** Scheduler names served; default: any (there is no kube-scheduler). */
  readonly schedulerNames?: readonly string[];
  /** A further filter on the pods scheduled here. */
  readonly accept?: (pod: Pod) => boolean;
  /** Image patterns to programs (see ImageMap). */
  readonly images: ImageMap;
  /** Cluster DNS for the processes: `{ "<svc>.<ns>": "127.0.0.X" }` (or FQDN keys). */
  readonly hosts?: Readonly<Record<string, string>>;
  /** Default `cluster.local`. */
  readonly clusterDomain?: string;
  /** Give each pod its own IP from this IPv4 CIDR instead of 127.0.0.1 (needed for EndpointSlices). */
  readonly podCIDR?: string;
  /** Verified TLS towards kube-apiserver (see createKubeletPki); default a self-signed certificate. */
  readonly tls?: KubeletPki;
  /** Where pod directories and logs live; default a new temp dir. */
  readonly workDir?: string;
  /** Keep workDir after stop (default: remove it unless KEEP_CP=1). */
  readonly keepWorkDir?: boolean;
  /** Lease renewal period in seconds (default 10). */
  readonly leaseRenewSeconds?: number;
  /** Delete the Node and its Lease on stop (default true). */
  readonly deleteNodeOnStop?: boolean;
  readonly log?: (line: string) => void;
}

/** Phase names, or a predicate over the pod. */
export type PodCheck = NonNullable<NonNullable<Pod['status']>['phase']> | ((pod: Pod) => boolean);

/** A running stand-in. */
export interface KubeletStandin {
  readonly nodeName: string;
  /** Port of the HTTPS endpoint on 127.0.0.1. */
  readonly kubeletPort: number;
  readonly workDir: string;
  /** Polls the pod until `check` holds; returns it. */
  waitForPod(namespace: string, name: string, check: PodCheck, timeoutMs?: number): Promise<Pod>;
  /** Polls until the pod object is gone. */
  waitForPodGone(namespace: string, name: string, timeoutMs?: number): Promise<void>;
  /** Pids of the pod's running container processes, by container name. */
  containerPids(namespace: string, name: string): ReadonlyMap<string, number>;
  /** The pod's directory (volumes, container roots, logs), while it is on the node. */
  podDir(namespace: string, name: string): string | undefined;
  stop(): Promise<void>;
}

const NODE_ADDRESS = '127.0.0.1';

/** Registers the node and starts serving pods. */
export async function startKubeletStandin(opts: KubeletStandinOptions): Promise<KubeletStandin> {
  const log = opts.log ?? ((): void => undefined);
  const nodeName = opts.nodeName ?? 'standin-node';
  const workDir = opts.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kubelet-standin-'));
  fs.mkdirSync(workDir, { recursive: true });
  const api = await connectApi(opts.kubeconfig);
  const apiUrl = new URL(opts.apiServer ?? api.server);
  const events = new EventRecorder(api, nodeName, log);
  const ips = podIpAllocator(NODE_ADDRESS, opts.podCIDR);
  const workers = new Map<string, PodWorker>();
  const byKey = new Map<string, string>();
  const binding = new Set<string>();
  const nodeLabels = { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': 'linux' };

  const serving =
    opts.tls === undefined
      ? selfSignedServing(path.join(workDir, 'pki'), nodeName)
      : { cert: opts.tls.servingCert, key: opts.tls.servingKey };
  const logs = await startLogsServer({
    host: NODE_ADDRESS,
    cert: serving.cert,
    key: serving.key,
    clientCa: opts.tls === undefined ? undefined : fs.readFileSync(opts.tls.caFile, 'utf8'),
    resolve: (ns, pod, container, previous) => findLog(workers.get(byKey.get(podKey(ns, pod)) ?? ''), ns, pod, container, previous),
    log,
  });
  const node = await registerNode(api, {
    nodeName,
    kubeletPort: logs.port,
    address: NODE_ADDRESS,
    podCIDR: opts.podCIDR,
    leaseRenewMs: (opts.leaseRenewSeconds ?? 10) * 1000,
    log,
  });

  const ctx = {
    api,
    events,
    log,
    workDir,
    images: opts.images,
    hosts: opts.hosts ?? {},
    clusterDomain: opts.clusterDomain ?? 'cluster.local',
    apiHost: apiUrl.hostname.replace(/^\[|\]$/g, ''),
    apiPort: apiUrl.port === '' ? '443' : apiUrl.port,
    hostIP: NODE_ADDRESS,
    rootCa: fs.readFileSync(opts.caFile, 'utf8'),
    podIP: (uid: string) => ips.allocate(uid),
  };
  const forget = (uid: string): void => {
    const worker = workers.get(uid);
    if (worker === undefined) return;
    workers.delete(uid);
    byKey.delete(podKey(worker.pod.metadata.namespace ?? '', worker.pod.metadata.name));
    ips.release(uid);
    events.forget(uid);
    void worker.shutdown().then(() => {
      if (opts.keepWorkDir !== true) fs.rmSync(worker.podDir, { recursive: true, force: true });
    });
  };

  const onPod = (pod: Pod): void => {
    const uid = pod.metadata.uid ?? '';
    const existing = workers.get(uid);
    if (existing !== undefined) {
      existing.update(pod);
      return;
    }
    if (pod.spec.nodeName === nodeName) {
      const phase = pod.status?.phase ?? 'Pending';
      if (pod.metadata.deletionTimestamp !== undefined) void finalizeForeign(api, pod, log);
      else if (phase === 'Pending') {
        const worker = new PodWorker(ctx, pod);
        workers.set(uid, worker);
        byKey.set(podKey(pod.metadata.namespace ?? '', pod.metadata.name), uid);
        worker.start();
      }
      return;
    }
    const policy = { nodeName, nodeLabels, namespaces: opts.namespaces, schedulerNames: opts.schedulerNames, accept: opts.accept };
    if (!binding.has(uid) && shouldBind(policy, pod)) {
      binding.add(uid);
      bindPod(api, events, nodeName, pod)
        .catch((err: unknown) => log(`binding ${pod.metadata.namespace ?? ''}/${pod.metadata.name} failed: ${describeError(err)}`))
        .finally(() => binding.delete(uid));
    }
  };

  const onChange = (change: PodChange): void => {
    if (change.type === 'LIST') {
      const present = new Set(change.pods.map((p) => p.metadata.uid ?? ''));
      for (const uid of [...workers.keys()]) if (!present.has(uid)) forget(uid);
      change.pods.forEach(onPod);
    } else if (change.type === 'DELETED') forget(change.pod.metadata.uid ?? '');
    else onPod(change.pod);
  };
  const watch = watchPods(api, onChange, log);

  const exitHook = (): void => {
    for (const worker of workers.values()) for (const pid of worker.pids.values()) killGroup(pid);
  };
  process.on('exit', exitHook);

  const standin: KubeletStandin = {
    nodeName,
    kubeletPort: logs.port,
    workDir,
    waitForPod: (ns, name, check, timeoutMs = 60_000) => waitForPod(api, ns, name, check, timeoutMs),
    async waitForPodGone(ns, name, timeoutMs = 60_000) {
      await poll(`pod ${ns}/${name} to be gone`, timeoutMs, async () => (await readPod(api, ns, name)) === undefined);
    },
    containerPids: (ns, name) => workers.get(byKey.get(podKey(ns, name)) ?? '')?.pids ?? new Map(),
    podDir: (ns, name) => workers.get(byKey.get(podKey(ns, name)) ?? '')?.podDir,
    async stop() {
      await watch.stop();
      await Promise.all([...workers.values()].map((w) => w.shutdown()));
      process.off('exit', exitHook);
      await logs.close();
      await node.stop(opts.deleteNodeOnStop ?? true);
      api.close();
      if (opts.keepWorkDir !== true && process.env['KEEP_CP'] !== '1' && opts.workDir === undefined)
        fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
  return standin;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** A pod on this node the stand-in never ran (an earlier stand-in's): finish its deletion as a kubelet would. */
async function finalizeForeign(api: KubeApi, pod: Pod, log: (line: string) => void): Promise<void> {
  try {
    await api.delete(`/api/v1/namespaces/${pod.metadata.namespace ?? 'default'}/pods/${pod.metadata.name}`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid: pod.metadata.uid },
    });
  } catch (err) {
    if (!isStatus(err, 404, 409)) log(`finalizing ${pod.metadata.namespace ?? ''}/${pod.metadata.name} failed: ${describeError(err)}`);
  }
}

function findLog(worker: PodWorker | undefined, ns: string, pod: string, container: string, previous: boolean): LogLookup {
  if (worker === undefined) return { status: 404, error: `pod "${ns}/${pod}" is not on this node` };
  const statuses = [...worker.rt.init, ...worker.rt.containers];
  const rt = statuses.find((c) => c.name === container);
  if (rt === undefined) return { status: 400, error: `container "${container}" is not valid for pod "${pod}"` };
  const attempts = worker.logAttempts(container);
  const attempt = previous ? attempts[attempts.length - 2] : attempts[attempts.length - 1];
  if (attempt !== undefined) return { attempt };
  if (previous) return { status: 400, error: `previous terminated container "${container}" in pod "${pod}" not found` };
  return {
    status: 400,
    error: `container "${container}" in pod "${pod}" is waiting to start: ${rt.state.waiting?.reason ?? 'ContainerCreating'}`,
  };
}

async function readPod(api: KubeApi, ns: string, name: string): Promise<Pod | undefined> {
  try {
    return await api.get<Pod>(`/api/v1/namespaces/${ns}/pods/${name}`);
  } catch (err) {
    if (isStatus(err, 404)) return undefined;
    throw err;
  }
}

async function poll(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function waitForPod(api: KubeApi, ns: string, name: string, check: PodCheck, timeoutMs: number): Promise<Pod> {
  let last: Pod | undefined;
  const test = typeof check === 'function' ? check : (p: Pod) => p.status?.phase === check;
  try {
    await poll(`pod ${ns}/${name}`, timeoutMs, async () => {
      last = await readPod(api, ns, name);
      return last !== undefined && test(last);
    });
  } catch (err) {
    const seen = last === undefined ? 'absent' : `phase ${last.status?.phase ?? '?'}, status ${JSON.stringify(last.status)}`;
    throw new Error(`${describeError(err)} (last seen: ${seen})`, { cause: err });
  }
  return last as Pod;
}
