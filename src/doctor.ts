import { judge } from './checks/index.ts';
import type { DoctorOptions } from './cli/options.ts';
import { KubeApi } from './cluster/api.ts';
import { SERVER_SERVICE, discoverServerNamespace } from './cluster/discovery.ts';
import { gatherClusterState } from './cluster/gather.ts';
import { loadKubeConfig, type KubeEnv } from './cluster/kubeconfig.ts';
import { readDoctorPod } from './cluster/pod-identity.ts';
import type { ClusterState } from './cluster/state.ts';
import { checkGrpcHealth } from './probes/grpc-health.ts';
import { joinHostPort } from './probes/hostport.ts';
import { probeRoute, probeSnapshot } from './probes/http-route.ts';
import type { DialResult, ProbeResults, ServerLocation, ServerProbes } from './probes/results.ts';
import { dialTcp } from './probes/tcp-dial.ts';
import { readBearerToken } from './probes/token.ts';
import { makeReport, type Report } from './report/finding.ts';

/** The controller-facing HTTP port of the server; fixed, as upstream. */
export const SNAPSHOT_PORT = '8081';
/** The gRPC port of a discovered server. */
export const DISCOVERED_GRPC_PORT = '9090';
/**
 * The longest any single probe may take. Probes run beside the Kubernetes reads, so a black-holed port
 * costs this much at most and never eats the deadline of the reads.
 */
export const PROBE_BUDGET_MS = 10_000;
/** How many CacheBackend endpoints are dialled at once. */
export const DIAL_CONCURRENCY = 16;

/** What a run needs from its surroundings, passed in so that only main.ts touches `process`. */
export interface RunEnvironment {
  readonly env: KubeEnv;
  readonly now: () => Date;
  /** `POD_NAMESPACE` (the downward API sets it in the chart's pod): the doctor runs in a pod of this namespace. */
  readonly podNamespace?: string | undefined;
}

/** A finished run: the report, and warnings for stderr. */
export interface RunResult {
  readonly report: Report;
  readonly warnings: readonly string[];
}

function overallSignal(timeoutMs: number): AbortSignal {
  return timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : AbortSignal.abort(new Error('--timeout is not positive'));
}

function probeBudget(deadline: number): number {
  return Math.max(0, Math.min(PROBE_BUDGET_MS, deadline - Date.now()));
}

async function locateServer(options: DoctorOptions, api: KubeApi, signal: AbortSignal): Promise<ServerLocation> {
  let host: string;
  let grpcPort: string;
  if (options.serverEndpoint !== undefined) {
    ({ host, grpcPort } = options.serverEndpoint);
  } else {
    const found = await discoverServerNamespace(api, signal);
    if (!found.ok) return { kind: 'failed', error: found.error };
    host = `${SERVER_SERVICE}.${found.namespace}.svc`;
    grpcPort = DISCOVERED_GRPC_PORT;
  }
  return { kind: 'found', grpcTarget: joinHostPort(host, grpcPort), httpBase: `http://${joinHostPort(host, SNAPSHOT_PORT)}` };
}

async function probeServer(
  options: DoctorOptions,
  api: KubeApi,
  env: KubeEnv,
  deadline: number,
  signal: AbortSignal,
  warnings: string[],
): Promise<ServerProbes> {
  const location = await locateServer(options, api, signal);
  if (location.kind === 'failed') {
    warnings.push(`${location.error}; the server probes are skipped`);
    return { location, tokenSent: false };
  }
  const bearer = await readBearerToken(options.snapshotTokenFile, env.INFERENCECACHE_SECRETS_ROOT ?? '');
  if (bearer.warning !== undefined) warnings.push(bearer.warning);
  const budget = () => ({ deadlineMs: probeBudget(deadline), signal });
  const [health, snapshot, policy, probe] = await Promise.all([
    checkGrpcHealth(location.grpcTarget, budget()),
    probeSnapshot(`${location.httpBase}/snapshot`, { ...budget(), token: bearer.token }),
    probeRoute(`${location.httpBase}/policy`, budget()),
    probeRoute(`${location.httpBase}/probe`, budget()),
  ]);
  return { location, health, snapshot, policy, probe, tokenSent: bearer.token !== '' };
}

/** Dials every distinct published endpoint of the backends that have a remote tier. */
async function dialEndpoints(state: ClusterState, deadline: number, signal: AbortSignal): Promise<Map<string, DialResult>> {
  const endpoints = state.cacheBackends.ok
    ? [...new Set(state.cacheBackends.items.flatMap((b) => (b.remoteStorage !== undefined && b.endpoint !== undefined ? [b.endpoint.value] : [])))]
    : [];
  const results = new Map<string, DialResult>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < endpoints.length; i = next++) {
      const endpoint = endpoints[i] as string;
      results.set(endpoint, await dialTcp(endpoint, { deadlineMs: probeBudget(deadline), signal }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(DIAL_CONCURRENCY, endpoints.length) }, worker));
  return results;
}

/**
 * One doctor run: load the kubeconfig, then gather the cluster state and probe the server side by side
 * under one overall deadline (each probe with its own, shorter one), judge, and build the report.
 * Throws only `KubeConfigError`, when there is no cluster to talk to.
 */
export async function runDoctor(options: DoctorOptions, environment: RunEnvironment): Promise<RunResult> {
  const now = environment.now();
  const deadline = now.getTime() + options.timeoutMs;
  const signal = overallSignal(options.timeoutMs);
  const api = new KubeApi(loadKubeConfig(options, environment.env));
  const warnings: string[] = [];

  const serverProbes = options.configOnly ? undefined : probeServer(options, api, environment.env, deadline, signal, warnings);
  const self = options.configOnly
    ? undefined
    : await readDoctorPod(environment.podNamespace, options.podLabelsFile, environment.env.INFERENCECACHE_SECRETS_ROOT ?? '');
  const state = await gatherClusterState(api, options.namespace, signal, {
    networkPolicies: !options.configOnly,
    ...(self === undefined ? {} : { podNamespace: self.namespace }),
  });
  const dials = options.configOnly ? undefined : await dialEndpoints(state, deadline, signal);
  const server = await serverProbes;

  const probes: ProbeResults = { ...(server === undefined ? {} : { server }), ...(dials === undefined ? {} : { dials }) };
  return { report: makeReport(judge({ state, probes, now, namespace: options.namespace, ...(self === undefined ? {} : { self }) })), warnings };
}
