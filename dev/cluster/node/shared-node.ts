/**
 * One real node for every suite of a test run that needs one (vitest's project `node`): started by the
 * first suite that asks, kept for the next, taken down once at the end of the run by the project's
 * global teardown (test/support/node-setup.ts). Argo CD and Flux are started the first time a suite
 * asks for them, and stay. Each suite finds the node as it was when it (and each add-on) had started
 * ({@link NodeBaseline}) and leaves it so: {@link releaseSharedNode} deletes what the suite added.
 *
 * Everything lives in one state file, written as each process starts, so the teardown (another process
 * than the suites', which vitest runs in workers) and `npm run cluster:down -- --orphans` after a killed
 * run can take down all of it. Its processes are started detached: they outlive the worker that
 * started them.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { cacheRoot } from '../../paths.ts';
import { isAlive, terminate } from '../controlplane.ts';
import { ARGOCD_PROCESSES, argoCdFrom, startArgoCd } from './argocd.ts';
import { nodeBaseline, nodeChanges, restoreNode, type NodeBaseline } from './baseline.ts';
import { FLUX_PROCESSES, startFlux, type Flux } from './flux.ts';
import { nodeBinaries, nodeLeftovers, startNodeCluster, stopNodeCluster, type NodeCluster, type NodeClusterState } from './node.ts';

/** What the state file of a shared node holds. */
export interface SharedNodeState {
  /** Absent while the node starts (it is written as soon as its control plane runs). */
  readonly node?: NodeClusterState;
  readonly baseline?: NodeBaseline;
  /** Argo CD once started: what {@link argoCdFrom} needs. */
  readonly argocd?: { readonly helmRepoUrl: string; readonly chartVersion: string };
  readonly flux?: Flux;
}

/** The state file of the shared node: outside the run's temporary folder, so a killed run's is found by the next. */
export function sharedNodeFile(): string {
  return join(cacheRoot(), 'run', 'shared-node.json');
}

export function readSharedNode(file: string = sharedNodeFile()): SharedNodeState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SharedNodeState;
  } catch {
    return undefined;
  }
}

function writeSharedNode(file: string, state: SharedNodeState): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(`${file}.tmp`, JSON.stringify(state, null, 1), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** Whether the node a state file names still runs: its API server and its kubelet. */
function running(state: SharedNodeState): state is SharedNodeState & { node: NodeClusterState; baseline: NodeBaseline } {
  const node = state.node;
  if (node === undefined || state.baseline === undefined) return false;
  const kubelet = node.pids['kubelet'];
  return isAlive(node.controlPlane.pids.apiserver) && kubelet !== undefined && isAlive(kubelet);
}

export interface AcquireOptions {
  readonly argocd?: boolean;
  readonly flux?: boolean;
  readonly log?: (line: string) => void;
}

/**
 * The shared node for a suite: started if no node runs, else the running one, put back to its baseline
 * first if the suite before did not (it was killed, or its teardown failed); with Argo CD and Flux when
 * asked for, started now if they do not run yet. `stop()` of the handle is refused: the node outlives
 * the suite, which gives it back with {@link releaseSharedNode}.
 */
export async function acquireSharedNode(file: string, opts: AcquireOptions = {}): Promise<NodeCluster> {
  const log = opts.log ?? (() => undefined);
  const kubectl = nodeBinaries().kubectl;
  let state = readSharedNode(file) ?? {};
  if (!running(state)) {
    if (state.node !== undefined) {
      log('the shared node recorded in the state file is not running: taking down what is left of it');
      await stopNodeCluster(state.node, log);
    }
    state = {};
    writeSharedNode(file, state);
    log('starting the shared node');
    const cluster = await startNodeCluster({
      detached: true,
      log,
      onState: (node) => {
        state = { ...state, node };
        writeSharedNode(file, state);
      },
    });
    state = { node: cluster.state, baseline: await nodeBaseline(kubectl, cluster.state.controlPlane.kubeconfigPath) };
    writeSharedNode(file, state);
  }
  if (!running(state)) throw new Error('the shared node did not start');
  const node = state.node;
  const kubeconfig = node.controlPlane.kubeconfigPath;
  const changes = await nodeChanges(kubectl, kubeconfig, state.baseline);
  if (changes.length > 0) {
    log(`the suite before left the node changed (${changes.join('; ')}): putting it back`);
    const left = await restoreNode(kubectl, kubeconfig, state.baseline, { log });
    if (left.length > 0) throw new Error(`the shared node cannot be put back as it was: ${left.join('; ')}`);
  }
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  /** Records an add-on's process in the state file at once, so the teardown stops it whatever happens next. */
  const started = (name: string, pid: number): number => {
    const current = readSharedNode(file) ?? state;
    if (current.node === undefined) throw new Error('no shared node');
    state = { ...current, node: { ...current.node, pids: { ...current.node.pids, [name]: pid } } };
    writeSharedNode(file, state);
    return pid;
  };
  const addOn = { kc, kubeconfigPath: kubeconfig, dir: node.dir, detached: true, log, started };
  /**
   * Starts an add-on; if it fails, stops what it had started and forgets it, so the next suite that
   * asks starts it afresh (what it applied to the API server goes when that suite puts the node back).
   */
  const startAddOn = async <T>(name: string, processes: readonly string[], start: () => Promise<T>): Promise<T> => {
    try {
      return await start();
    } catch (err) {
      log(`${name} did not start: stopping what of it had started`);
      const current = readSharedNode(file) ?? state;
      const pids = { ...(current.node?.pids ?? {}) };
      for (const p of processes) {
        const pid = pids[p];
        if (pid !== undefined && isAlive(pid)) await terminate(pid, 10_000, 3_000);
        delete pids[p];
      }
      if (current.node !== undefined) {
        state = { ...current, node: { ...current.node, pids } };
        writeSharedNode(file, state);
      }
      throw err;
    }
  };
  if (opts.argocd === true && state.argocd === undefined) {
    const argocd = await startAddOn('Argo CD', ARGOCD_PROCESSES, () => startArgoCd(addOn));
    state = { ...state, argocd: { helmRepoUrl: argocd.helmRepoUrl, chartVersion: argocd.chartVersion } };
    state = { ...state, baseline: await nodeBaseline(kubectl, kubeconfig) };
    writeSharedNode(file, state);
  }
  if (opts.flux === true && state.flux === undefined) {
    const flux = await startAddOn('Flux', FLUX_PROCESSES, () => startFlux(addOn));
    state = { ...state, flux };
    state = { ...state, baseline: await nodeBaseline(kubectl, kubeconfig) };
    writeSharedNode(file, state);
  }
  const current = state;
  if (current.node === undefined || current.node.registry === undefined) throw new Error('the shared node has no registry');
  return {
    state: current.node,
    kc,
    registry: current.node.registry,
    ...(opts.argocd === true && current.argocd !== undefined
      ? { argocd: argoCdFrom(current.node.dir, current.argocd.helmRepoUrl, current.argocd.chartVersion) }
      : {}),
    ...(opts.flux === true && current.flux !== undefined ? { flux: current.flux } : {}),
    stop() {
      return Promise.reject(new Error('the shared node outlives its suites: give it back with releaseSharedNode'));
    },
  };
}

/**
 * Gives the shared node back: deletes what the suite added since its baseline and waits until the node
 * is as it was. Returns what could not be put back (empty when the node is as the suite found it).
 */
export async function releaseSharedNode(file: string, log: (line: string) => void = () => undefined): Promise<string[]> {
  const state = readSharedNode(file);
  if (state === undefined || !running(state)) return ['no shared node runs'];
  return restoreNode(nodeBinaries().kubectl, state.node.controlPlane.kubeconfigPath, state.baseline, { log });
}

/**
 * Takes the shared node down, if one runs (the global teardown; a suite that needs a node of its own
 * first), and removes the state file. Returns what the node left in the machine (empty when nothing).
 */
export async function stopSharedNode(file: string, log: (line: string) => void = () => undefined): Promise<string[]> {
  const state = readSharedNode(file);
  if (state?.node === undefined) {
    rmSync(file, { force: true });
    return [];
  }
  const problems = await stopNodeCluster(state.node, log);
  const left = nodeLeftovers(state.node);
  rmSync(file, { force: true });
  return [...problems, ...left];
}

/** Whether a state file names a node (running or not). */
export function sharedNodeRecorded(file: string): boolean {
  return existsSync(file) && readSharedNode(file)?.node !== undefined;
}
