/**
 * A cluster with a real node: the control plane (etcd, kube-apiserver, kube-controller-manager) plus
 * kube-scheduler, containerd with runc, the kubelet, the CNI bridge, kube-proxy in iptables mode,
 * CoreDNS and kube-router's NetworkPolicy firewall, all on this machine and inside it (see
 * addresses.ts). `startNodeCluster` brings it up; `stopNodeCluster` takes it down from its state (also
 * from another process: `cluster:down`) and `nodeLeftovers` says what, if anything, it left behind.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import {
  controlPlaneState,
  freePorts,
  httpGetOk,
  isAlive,
  killGroup,
  readPinnedVersions,
  resolveBinaries,
  startControlPlane,
  stopControlPlane,
  terminate,
  waitFor,
  writeKubeconfig,
  type ControlPlaneState,
} from '../controlplane.ts';
import { applyObjects } from '../manifests.ts';
import { PROJECT_ROOT, cacheRoot } from '../../paths.ts';
import { pollUntil } from '../../poll.ts';
import { createServingPki } from '../pki/serving-pki.ts';
import { kubeletApiServerArgs } from './kubelet.ts';
import { NODE_IP, NODE_NAME, POD_CIDR, SERVICE_CIDR } from './addresses.ts';
import { COREDNS_SELECTOR, coreDnsObjects, coreDnsReady } from './coredns.ts';
import { KUBE_PROXY_USER, cleanUpKubeProxy, startKubeProxy } from './kube-proxy.ts';
import { KUBE_ROUTER_USER, cleanUpKubeRouter, kubeRouterObjects, startKubeRouter } from './kube-router.ts';
import { SCHEDULER_USER, startScheduler } from './scheduler.ts';
import { cgroupProcs, kubepodsCgroups, removeCgroupTree } from './cgroups.ts';
import { containerdPaths, importImage, removeAllContainers, startContainerd } from './containerd.ts';
import {
  networkLeftovers,
  netns,
  recordHostNetwork,
  setUpHostNetwork,
  tearDownHostNetwork,
  type HostNetworkRecord,
} from './host-network.ts';
import { buildNodeImages } from '../images.ts';
import { startKubelet } from './kubelet.ts';
import { ARGOCD_PROCESSES, startArgoCd, type ArgoCd } from './argocd.ts';
import { FLUX_PROCESSES, startFlux, type Flux } from './flux.ts';
import { publishChart, publishDoctorImage, registryPrograms, startRegistry, type NodeRegistry } from './registry.ts';

/** The node's programs, where hack/build-tools.sh puts them. */
export interface NodeBinaries {
  readonly kubeScheduler: string;
  readonly kubeProxy: string;
  readonly kubelet: string;
  readonly coredns: string;
  readonly kubeRouter: string;
  readonly pause: string;
  /** Not part of the node: what an operator looks at it with (`kubectl get nodes`). */
  readonly kubectl: string;
}

/** The node's programs for the pinned versions (same layout as hack/lib.sh). */
export function nodeBinaries(): NodeBinaries {
  const v = readPinnedVersions();
  const bin = (component: string, key: string) => join(cacheRoot(), 'bin', `${component}-${v[key] ?? 'unknown'}`, component);
  return {
    kubeScheduler: bin('kube-scheduler', 'KUBERNETES_VERSION'),
    kubeProxy: bin('kube-proxy', 'KUBERNETES_VERSION'),
    kubelet: bin('kubelet', 'KUBELET_VERSION'),
    coredns: bin('coredns', 'COREDNS_VERSION'),
    kubeRouter: bin('kube-router', 'KUBE_ROUTER_VERSION'),
    pause: bin('pause', 'PAUSE_VERSION'),
    kubectl: bin('kubectl', 'KUBERNETES_VERSION'),
  };
}

/** Debian packages the node needs (what .ci/run installs). */
const TOOLS = ['containerd', 'ctr', 'runc', 'iptables', 'iptables-save', 'iptables-restore', 'ipset', 'nft', 'ip', 'buildah'];
const CNI_PLUGINS = ['/usr/lib/cni/bridge', '/usr/lib/cni/host-local', '/usr/lib/cni/loopback'];

/** What the node needs and this machine lacks (programs, packages, root); empty when it can run. */
export function missingForNode(): string[] {
  const programs: readonly string[] = [
    ...Object.values<string>({ ...nodeBinaries() }),
    ...Object.values(registryPrograms()),
    resolveBinaries().helm4,
  ];
  const missing = programs.filter((f) => !existsSync(f));
  for (const tool of TOOLS) if (spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0) missing.push(tool);
  missing.push(...CNI_PLUGINS.filter((f) => !existsSync(f)));
  if (process.getuid?.() !== 0) missing.push('root');
  return missing;
}

/** Everything needed to take the cluster down, from any process. */
export interface NodeClusterState {
  readonly controlPlane: ControlPlaneState;
  readonly dir: string;
  readonly network: HostNetworkRecord;
  /** Cgroup folders `kubepods` that existed before (none, normally): never removed. */
  readonly cgroupsBefore: readonly string[];
  /** Which of {@link HOST_PATHS} existed before. */
  readonly hostPathsBefore: readonly string[];
  readonly pids: Record<string, number>;
  readonly containerdSocket: string;
  /** The binaries of kube-proxy and kube-router, for their cleanup modes. */
  readonly bins: NodeBinaries;
  /** The node's image registry once it runs: where `cluster:up` users push and pull (registry.ts). */
  readonly registry?: NodeRegistry;
}

/** A running cluster with a real node. */
export interface NodeCluster {
  readonly state: NodeClusterState;
  readonly kc: KubeConfig;
  /** Argo CD, when it was asked for. */
  readonly argocd?: ArgoCd;
  /** Flux's source-controller and helm-controller, when they were asked for. */
  readonly flux?: Flux;
  /** The node's image registry, which containerd trusts (registry.ts). */
  readonly registry: NodeRegistry;
  stop(): Promise<void>;
}

export interface NodeClusterOptions {
  readonly detached?: boolean;
  readonly log?: (line: string) => void;
  /**
   * Called with the state as soon as the control plane runs (its `pids` fill in as processes start), so
   * a caller can record it before anything else can fail: `cluster:down` then takes down whatever was
   * started. With KEEP_CP=1 a failed start leaves everything running for a look at its logs.
   */
  readonly onState?: (state: NodeClusterState) => void;
  /** Also start Argo CD's repo-server and application-controller, with Redis and the chart's Helm repository (argocd.ts). */
  readonly argocd?: boolean;
  /** Also start Flux's source-controller and helm-controller with their CRDs (flux.ts). */
  readonly flux?: boolean;
}

/**
 * Folders outside the node's own that runc (its state), the CNI library (its result cache) and the CNI
 * plugins (named network namespaces) create at fixed paths. Removed at teardown when they did not exist
 * before.
 */
const HOST_PATHS = ['/run/containerd', '/var/lib/cni', '/run/netns'];

/** Mount points at or under `dir`, deepest first. */
function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => (l.split(' ')[4] ?? '').replace(/\\040/g, ' '))
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function kubeconfigFor(state: ControlPlaneState, dir: string, user: string): string {
  const file = join(dir, `${user.replace(/[^a-z0-9-]/gi, '_')}.kubeconfig`);
  const token = state.userTokens[user];
  if (token === undefined) throw new Error(`no token for ${user}`);
  writeKubeconfig(file, state.server, state.caFile, user, token);
  return file;
}

/** Waits until `check` holds, looking every 500 ms. */
function until(what: string, timeoutMs: number, check: () => Promise<string | true>): Promise<void> {
  return pollUntil(what, { timeoutMs, intervalMs: 500 }, check);
}

/** Starts the whole cluster. On failure everything already started is taken down again. */
export async function startNodeCluster(opts: NodeClusterOptions = {}): Promise<NodeCluster> {
  const log = opts.log ?? (() => undefined);
  const detached = opts.detached === true;
  const missing = missingForNode();
  if (missing.length > 0)
    throw new Error(`the real node needs: ${missing.join(', ')} (hack/build-tools.sh node; .ci/run installs the packages)`);
  const bins = nodeBinaries();
  // Short: unix socket paths under it must stay within 108 bytes.
  const dir = mkdtempSync(join(tmpdir(), 'icd-node-'));
  const network = recordHostNetwork();
  const cgroupsBefore = kubepodsCgroups();
  const hostPathsBefore = HOST_PATHS.filter((p) => existsSync(p));
  const pids: Record<string, number> = {};
  const paths = containerdPaths(dir);
  let controlPlane: ControlPlaneState | undefined;
  let registry: NodeRegistry | undefined;
  const state = (): NodeClusterState => {
    if (controlPlane === undefined) throw new Error('no control plane');
    const base = { controlPlane, dir, network, cgroupsBefore, hostPathsBefore, pids, containerdSocket: paths.socket, bins };
    return registry === undefined ? base : { ...base, registry };
  };
  try {
    log(`host network: ${NODE_IP} on the node's interface, pods in ${POD_CIDR}, Services in ${SERVICE_CIDR}`);
    setUpHostNetwork();
    const pki = createServingPki(join(dir, 'kubelet-pki'), NODE_NAME, [NODE_IP]);
    const cp = await startControlPlane({
      startControllerManager: true,
      address: NODE_IP,
      detached,
      extraApiServerArgs: kubeletApiServerArgs(pki),
      users: {
        [`system:node:${NODE_NAME}`]: ['system:nodes'],
        [KUBE_PROXY_USER]: [],
        [SCHEDULER_USER]: [],
        [KUBE_ROUTER_USER]: [],
      },
      log,
    });
    controlPlane = controlPlaneState(cp);
    opts.onState?.(state());
    /** Records a started process at once, so a failure later still takes it down. */
    const started = (name: string, pid: number): number => {
      pids[name] = pid;
      opts.onState?.(state());
      return pid;
    };
    const kc = new KubeConfig();
    kc.loadFromFile(cp.kubeconfigPath);
    const [schedulerPort, kubeletPort, kubeletHealthz, proxyHealthz, proxyMetrics, routerHealth] = (await freePorts(6)) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];

    log('starting kube-scheduler');
    started(
      'kube-scheduler',
      startScheduler({
        bin: bins.kubeScheduler,
        kubeconfig: kubeconfigFor(controlPlane, dir, SCHEDULER_USER),
        port: schedulerPort,
        log: join(dir, 'kube-scheduler.log'),
        detached,
      }),
    );

    log('starting the image registry (TLS, htpasswd)');
    const nodeRegistry = await startRegistry(dir, detached, (pid) => started('registry', pid));
    registry = nodeRegistry;
    opts.onState?.(state());

    log('building the node images (cached) and starting containerd');
    const images = await buildNodeImages(join(cacheRoot(), 'node-images'), { pause: bins.pause, coredns: bins.coredns });
    await startContainerd(paths, images.pause, nodeRegistry.hostsDir, detached, (pid) => started('containerd', pid));
    for (const archive of images.archives) importImage(paths, archive);
    log('pushing the doctor image and the chart to the registry (the node pulls them from there)');
    publishDoctorImage(nodeRegistry);
    // Helm 4 pushes the chart (hack/build-tools.sh builds it beside the control plane).
    publishChart(nodeRegistry, resolveBinaries().helm4, join(PROJECT_ROOT, 'chart'), dir);

    log(`starting the kubelet (node ${NODE_NAME})`);
    const kubelet = started(
      'kubelet',
      startKubelet(
        {
          bin: bins.kubelet,
          dir: join(dir, 'kubelet'),
          kubeconfig: kubeconfigFor(controlPlane, dir, `system:node:${NODE_NAME}`),
          containerdSocket: paths.socket,
          pki,
          port: kubeletPort,
          healthzPort: kubeletHealthz,
          detached,
        },
        join(dir, 'kubelet.log'),
      ),
    );
    await waitFor('kubelet', 120_000, kubelet, join(dir, 'kubelet.log'), () => httpGetOk(`http://127.0.0.1:${kubeletHealthz}/healthz`));

    log('starting kube-proxy (iptables) and kube-router (NetworkPolicy firewall only)');
    const proxy = started(
      'kube-proxy',
      startKubeProxy({
        bin: bins.kubeProxy,
        kubeconfig: kubeconfigFor(controlPlane, dir, KUBE_PROXY_USER),
        healthzPort: proxyHealthz,
        metricsPort: proxyMetrics,
        log: join(dir, 'kube-proxy.log'),
        detached,
      }),
    );
    await applyObjects(kc, kubeRouterObjects());
    const router = started(
      'kube-router',
      startKubeRouter({
        bin: bins.kubeRouter,
        kubeconfig: kubeconfigFor(controlPlane, dir, KUBE_ROUTER_USER),
        healthPort: routerHealth,
        log: join(dir, 'kube-router.log'),
        detached,
      }),
    );
    await waitFor('kube-proxy', 60_000, proxy, join(dir, 'kube-proxy.log'), () => httpGetOk(`http://127.0.0.1:${proxyHealthz}/livez`));
    await waitFor('kube-router', 60_000, router, join(dir, 'kube-router.log'), () => httpGetOk(`http://127.0.0.1:${routerHealth}/healthz`));

    const core = kc.makeApiClient(CoreV1Api);
    await until(`node ${NODE_NAME} Ready`, 120_000, async () => {
      const node = await core.readNode({ name: NODE_NAME });
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' || `Ready=${ready?.status ?? '?'} ${ready?.message ?? ''}`;
    });

    log('deploying CoreDNS behind the kube-dns Service');
    await applyObjects(kc, coreDnsObjects());
    await until('CoreDNS Ready', 120_000, async () =>
      coreDnsReady((await core.listNamespacedPod({ namespace: 'kube-system', labelSelector: COREDNS_SELECTOR })).items),
    );
    const argocd =
      opts.argocd === true ? await startArgoCd({ kc, kubeconfigPath: cp.kubeconfigPath, dir, detached, log, started }) : undefined;
    const flux = opts.flux === true ? await startFlux({ kc, kubeconfigPath: cp.kubeconfigPath, dir, detached, log, started }) : undefined;
    const running = state();
    let stopped = false;
    return {
      state: running,
      kc,
      registry: nodeRegistry,
      ...(argocd === undefined ? {} : { argocd }),
      ...(flux === undefined ? {} : { flux }),
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopNodeCluster(running, log);
      },
    };
  } catch (err) {
    if (controlPlane !== undefined && process.env['KEEP_CP'] === '1') log(`KEEP_CP=1: left running for a look (logs in ${dir})`);
    else if (controlPlane !== undefined) await stopNodeCluster(state(), log);
    else {
      for (const pid of Object.values(pids)) killGroup(pid, 'SIGKILL');
      tearDownHostNetwork(network);
      rmSync(dir, { recursive: true, force: true });
    }
    throw err;
  }
}

/**
 * Whether `pid` is still the node's process: alive, and its command line names the node's folder (each
 * one's does: its config or kubeconfig lives there). A pid recorded long ago may belong to another
 * process by now, which must never be signalled.
 */
function isNodeProcess(pid: number | undefined, dir: string): pid is number {
  if (pid === undefined || !isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
  } catch {
    return false;
  }
}

async function stopProcess(pid: number | undefined, dir: string): Promise<void> {
  if (isNodeProcess(pid, dir)) await terminate(pid, 10_000, 3_000);
}

/**
 * Takes the cluster down in the order that leaves nothing: Argo CD's and Flux's processes, the scheduler (no new pods land), then
 * every pod on the node is deleted while the kubelet still runs (it stops the sandboxes, so the CNI
 * plugin releases addresses, veths and network namespaces); then kube-router and kube-proxy, each run
 * once more in its cleanup mode; the kubelet; containerd's remaining containers and containerd; mounts
 * under the node's folder; the `kubepods` cgroups; the host network; the control plane.
 */
export async function stopNodeCluster(state: NodeClusterState, log: (line: string) => void = () => undefined): Promise<string[]> {
  const problems: string[] = [];
  // Argo CD and Flux first, so that nothing re-creates what is taken down.
  for (const name of [...ARGOCD_PROCESSES, ...FLUX_PROCESSES]) await stopProcess(state.pids[name], state.dir);
  await stopProcess(state.pids['kube-scheduler'], state.dir);
  if (isNodeProcess(state.pids['kubelet'], state.dir) && isAlive(state.controlPlane.pids.apiserver)) {
    try {
      await deleteNodePods(state, log);
    } catch (err) {
      problems.push(`deleting the node's pods: ${(err as Error).message}`);
    }
  }
  await stopProcess(state.pids['kube-router'], state.dir);
  cleanUpKubeRouter(state.bins.kubeRouter);
  await stopProcess(state.pids['kube-proxy'], state.dir);
  cleanUpKubeProxy(state.bins.kubeProxy);
  await stopProcess(state.pids['kubelet'], state.dir);
  if (isNodeProcess(state.pids['containerd'], state.dir)) removeAllContainers(containerdPaths(state.dir));
  await stopProcess(state.pids['containerd'], state.dir);
  await stopProcess(state.pids['registry'], state.dir);
  // A safety net for what containerd could not stop: its shims, and any container process (every one
  // runs in a kubepods cgroup, which the kubelet made).
  for (const pid of shimProcesses(state.containerdSocket)) killGroup(Number(pid), 'SIGKILL');
  const made = kubepodsCgroups().filter((c) => !state.cgroupsBefore.includes(c));
  for (const pid of new Set(made.flatMap(cgroupProcs))) killGroup(pid, 'SIGKILL');
  if (made.length > 0) await sleep(500);
  for (const m of mountsUnder(state.dir)) if (spawnSync('umount', ['-l', m]).status !== 0) problems.push(`could not unmount ${m}`);
  for (const cg of made) removeCgroupTree(cg);
  problems.push(...tearDownHostNetwork(state.network));
  for (const p of HOST_PATHS.filter((h) => !state.hostPathsBefore.includes(h))) rmSync(p, { recursive: true, force: true });
  await stopControlPlane(state.controlPlane);
  rmSync(state.dir, { recursive: true, force: true });
  for (const p of problems) log(`teardown: ${p}`);
  return problems;
}

/** Deletes the pods bound to the node and waits until their sandboxes' network namespaces are gone. */
async function deleteNodePods(state: NodeClusterState, log: (line: string) => void): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(state.controlPlane.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  const pods = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${NODE_NAME}` });
  log(`deleting ${pods.items.length} pods on ${NODE_NAME}`);
  await Promise.all(
    pods.items.map((p) =>
      core
        .deleteNamespacedPod({ name: p.metadata?.name ?? '', namespace: p.metadata?.namespace ?? '', gracePeriodSeconds: 1 })
        .catch(() => undefined),
    ),
  );
  await until('the node pods gone', 90_000, async () => {
    const left = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${NODE_NAME}` });
    const ns = netns().filter((n) => !state.network.netns.includes(n));
    return (left.items.length === 0 && ns.length === 0) || `${left.items.length} pods, ${ns.length} network namespaces left`;
  }).catch((err: unknown) => log((err as Error).message));
}

/** What the cluster left in the machine: processes, mounts, cgroups, network objects. Empty when nothing. */
export function nodeLeftovers(state: NodeClusterState): string[] {
  return [
    ...Object.entries(state.pids)
      .filter(([, pid]) => isNodeProcess(pid, state.dir))
      .map(([name, pid]) => `process ${name} (${String(pid)})`),
    ...Object.entries(state.controlPlane.pids)
      .filter(([, pid]) => isNodeProcess(pid, state.controlPlane.dir))
      .map(([name, pid]) => `process ${name} (${String(pid)})`),
    ...shimProcesses(state.containerdSocket).map((pid) => `containerd shim ${pid}`),
    ...mountsUnder(state.dir).map((m) => `mount ${m}`),
    ...kubepodsCgroups()
      .filter((c) => !state.cgroupsBefore.includes(c))
      .map((c) => `cgroup ${c}`),
    ...networkLeftovers(state.network),
    ...[state.dir, ...HOST_PATHS.filter((h) => !state.hostPathsBefore.includes(h))].filter((p) => existsSync(p)).map((p) => `folder ${p}`),
  ];
}

/** containerd shims started for this containerd (their command line names its socket). */
function shimProcesses(socket: string): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
        return cmd.includes('containerd-shim') && cmd.includes(socket);
      } catch {
        return false;
      }
    });
}
