import { join } from 'node:path';
import { judge, planRun } from './checks/registry.ts';
import type { DoctorOptions } from './cli/options.ts';
import { KubeApi } from './cluster/api.ts';
import { SERVER_SERVICE, discoverServerNamespace } from './cluster/discovery.ts';
import { gatherClusterState } from './cluster/gather.ts';
import { loadKubeConfig } from './cluster/kubeconfig.ts';
import { readDoctorPod } from './cluster/pod-identity.ts';
import type { ClusterState } from './cluster/state.ts';
import { joinHostPort } from './go/hostport.ts';
import type { DialResult, ProbeResults, ServerLocation, ServerProbes } from './probes/results.ts';
import { dialTcp } from './probes/tcp-dial.ts';
import { readBearerToken } from './probes/token.ts';
import { makeReport, type Report } from './report/finding.ts';
import { interruptionOf } from './text/errors.ts';

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

/**
 * The files a pod gives the doctor, by path. `main.ts` builds the one value with the in-pod paths
 * (the kubelet mounts them there); a flag names another file where there is one.
 */
export interface PodFiles {
  /** The ServiceAccount's `token` and `ca.crt`, for the in-cluster kubeconfig. */
  readonly serviceAccountDir: string;
  /** The projected token with the audience `/snapshot` accepts; the default bearer token. */
  readonly controllerToken: string;
  /** The downward-API labels file (`--pod-labels-file` overrides it). */
  readonly podLabels: string;
  /** Where the kubelet reads the termination message (`--termination-message-path` overrides it). */
  readonly terminationLog: string;
}

/** What a run needs from its surroundings, passed in so that only main.ts touches `process`. */
export interface RunEnvironment {
  /** The environment: the kubeconfig loader reads its variables, an exec credential plugin runs with it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => Date;
  /** `POD_NAMESPACE` and `POD_NAME`, which the chart's pod sets through the downward API. */
  readonly pod: { readonly namespace?: string | undefined; readonly name?: string | undefined };
  readonly files: PodFiles;
  /** Aborted (with an `Interrupted` reason) when the process is told to stop; the run then ends early. */
  readonly interrupt?: AbortSignal;
}

/** A finished run: the report, and warnings for stderr. */
export interface RunResult {
  readonly report: Report;
  readonly warnings: readonly string[];
}

/** Ends every read and probe when `--timeout` passes or the process is interrupted, whichever is first. */
function overallSignal(timeoutMs: number, interrupt: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return interrupt === undefined ? timeout : AbortSignal.any([timeout, interrupt]);
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
  files: PodFiles,
  deadline: number,
  signal: AbortSignal,
  warnings: string[],
): Promise<ServerProbes> {
  const location = await locateServer(options, api, signal);
  if (location.kind === 'failed') {
    warnings.push(`${location.error}; the server probes are skipped`);
    return { location, tokenSent: false };
  }
  const bearer = await readBearerToken(options.snapshotTokenFile, {
    controllerToken: files.controllerToken,
    serviceAccountToken: join(files.serviceAccountDir, 'token'),
  });
  if (bearer.warning !== undefined) warnings.push(bearer.warning);
  // The gRPC and HTTP clients load only for a run that probes the server (never for --config-only).
  const [{ checkGrpcHealth }, { probeRoute, probeSnapshot }] = await Promise.all([
    import('./probes/grpc-health.ts'),
    import('./probes/http-route.ts'),
  ]);
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
  const backends = state.cacheBackends?.ok === true ? state.cacheBackends.items : [];
  const endpoints = [
    ...new Set(backends.flatMap((b) => (b.remoteStorage !== undefined && b.endpoint !== undefined ? [b.endpoint.value] : []))),
  ];
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
 * One doctor run: load the kubeconfig, then gather what the checks declare and probe the server side
 * by side under one overall deadline (each probe with its own, shorter one), judge, and build the
 * report (incomplete when interrupted). Throws only `KubeConfigError`, when there is no cluster to talk to.
 */
export async function runDoctor(options: DoctorOptions, environment: RunEnvironment): Promise<RunResult> {
  const now = environment.now();
  const deadline = now.getTime() + options.timeoutMs;
  const signal = overallSignal(options.timeoutMs, environment.interrupt);
  const { files } = environment;
  const api = new KubeApi(loadKubeConfig(options, environment.env, files.serviceAccountDir), environment.env);
  const warnings: string[] = [];
  const plan = planRun(options);

  const serverProbes = plan.probes.has('server') ? probeServer(options, api, files, deadline, signal, warnings) : undefined;
  const self = await readDoctorPod(environment.pod, options.podLabelsFile ?? files.podLabels);
  const state = await gatherClusterState(
    api,
    { reads: plan.reads, namespace: options.namespace, ...(self === undefined ? {} : { self }) },
    signal,
  );
  const dials = plan.probes.has('dials') ? await dialEndpoints(state, deadline, signal) : undefined;
  const server = await serverProbes;

  const probes: ProbeResults = { ...(server === undefined ? {} : { server }), ...(dials === undefined ? {} : { dials }) };
  const findings = judge({ state, probes, now, namespace: options.namespace, ...(self === undefined ? {} : { self }) });
  return { report: makeReport(findings, interruptionOf(environment.interrupt), options.failOn), warnings };
}
