/**
 * The probes of one attempt: where the cache-plane server is (a flag, or its Service), its gRPC health
 * and the three routes of its controller-facing listener, side by side; and a TCP dial of every
 * distinct endpoint the CacheBackends publish, a few at a time. Each probe has its own budget inside
 * the attempt's deadline. In a fresh pod, each port is first given the chance to admit the pod (the
 * admission gate, settle.ts); the budget of the probe that follows starts after that.
 *
 * @module
 */

import { join } from 'node:path';
import type { DoctorOptions } from '../cli/options.ts';
import type { KubeApi } from '../cluster/transport/kube-api.ts';
import { SERVER_SERVICE, discoverServerNamespace } from '../cluster/gather/discovery.ts';
import type { ClusterState } from '../cluster/state/state.ts';
import { joinHostPort } from '../go/hostport.ts';
import type { DialResult, RouteProbes, ServerLocation, ServerProbes } from '../probes/results.ts';
import type { GrpcPortAddress } from '../probes/server-transport.ts';
import type { AdmissionGate } from '../probes/settle.ts';
import { dialTarget, dialTcp } from '../probes/tcp-dial.ts';
import { readBearerToken } from '../probes/token.ts';
import type { PodFiles, ProbeKind, ProbeTimer } from './environment.ts';

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

/** The budget of the next probe: {@link PROBE_BUDGET_MS}, or what is left of the attempt if that is less. */
export type Budget = () => number;

/** A budget that reads the run's clock against the attempt's deadline. */
export function budgetUntil(deadline: number, clock: () => Date): Budget {
  return () => Math.max(0, Math.min(PROBE_BUDGET_MS, deadline - clock().getTime()));
}

/** Where the server was found: the location the checks see, and the gRPC port as the probe dials it. */
type Located =
  | { readonly location: Extract<ServerLocation, { kind: 'found' }>; readonly grpc: GrpcPortAddress }
  | { readonly location: Extract<ServerLocation, { kind: 'failed' }> };

async function locateServer(options: DoctorOptions, api: KubeApi, signal: AbortSignal): Promise<Located> {
  let host: string;
  let grpcPort: string;
  if (options.serverEndpoint !== undefined) {
    ({ host, grpcPort } = options.serverEndpoint);
  } else {
    const found = await discoverServerNamespace(api, signal);
    if (!found.ok) return { location: { kind: 'failed', error: found.error } };
    host = `${SERVER_SERVICE}.${found.namespace}.svc`;
    grpcPort = DISCOVERED_GRPC_PORT;
  }
  const grpcTarget = joinHostPort(host, grpcPort);
  return {
    location: { kind: 'found', grpcTarget, httpBase: `http://${joinHostPort(host, SNAPSHOT_PORT)}` },
    grpc: { target: grpcTarget, host, port: Number(grpcPort) },
  };
}

/** Runs `probe`, and tells `timer` (when there is one) how long it took. */
async function timed<T>(timer: ProbeTimer | undefined, kind: ProbeKind, probe: () => Promise<T>): Promise<T> {
  if (timer === undefined) return probe();
  const start = performance.now();
  try {
    return await probe();
  } finally {
    timer(kind, (performance.now() - start) / 1000);
  }
}

/** Waits at `gate` for a port to admit the pod, when there is a gate; then runs `probe`. */
async function afterGate<T>(gate: AdmissionGate | undefined, host: string, port: number, probe: () => Promise<T>) {
  const settling = gate === undefined ? undefined : await gate(host, port);
  return { settling, result: await probe() };
}

/** What the server probes found: its gRPC port, and its listener's routes when they were probed. */
export interface ServerProbeResults {
  readonly server: ServerProbes;
  readonly routes?: RouteProbes;
}

/**
 * `GET /snapshot` with the bearer token, `HEAD /policy` and `HEAD /probe` of the listener at `base`, at
 * once, after the port's admission `gate` in a fresh pod.
 */
async function probeRoutes(
  options: DoctorOptions,
  files: PodFiles,
  base: string,
  host: string,
  within: () => { deadlineMs: number; signal: AbortSignal },
  warnings: string[],
  gate: AdmissionGate | undefined,
  timer: ProbeTimer | undefined,
): Promise<RouteProbes> {
  const { signal } = within();
  const bearer = await readBearerToken(
    options.snapshotTokenFile,
    { controllerToken: files.controllerToken, serviceAccountToken: join(files.serviceAccountDir, 'token') },
    signal,
  );
  if (bearer.warning !== undefined) warnings.push(bearer.warning);
  const { probeRoute, probeSnapshot } = await import('../probes/http-route.ts');
  const { settling, result } = await afterGate(gate, host, Number(SNAPSHOT_PORT), () =>
    Promise.all([
      timed(timer, 'snapshot', () => probeSnapshot(`${base}/snapshot`, { ...within(), token: bearer.token })),
      timed(timer, 'policy', () => probeRoute(`${base}/policy`, within())),
      timed(timer, 'probe', () => probeRoute(`${base}/probe`, within())),
    ]),
  );
  const [snapshot, policy, probe] = result;
  return { base, snapshot, policy, probe, tokenSent: bearer.token !== '', ...(settling === undefined ? {} : { settling }) };
}

/**
 * Locates the server and probes it: gRPC health (plaintext or TLS, `--server-tls`) and, when `routes`,
 * the three routes of its controller-facing listener, side by side, each port after its admission
 * `gate` in a fresh pod. A server that cannot be located is a result too (the checks report it), with
 * a warning for stderr.
 */
export async function probeServer(
  options: DoctorOptions,
  api: KubeApi,
  files: PodFiles,
  probe: { readonly budget: Budget; readonly signal: AbortSignal; readonly routes: boolean; readonly timer?: ProbeTimer | undefined },
  warnings: string[],
  gate?: AdmissionGate,
): Promise<ServerProbeResults> {
  const { budget, signal, timer } = probe;
  const located = await locateServer(options, api, signal);
  if (!('grpc' in located)) {
    warnings.push(`${located.location.error}; the server probes are skipped`);
    return { server: { location: located.location } };
  }
  const { location, grpc: grpcAddress } = located;
  // The gRPC and HTTP clients load only for a run that probes the server (never for --config-only).
  const { probeServerGrpc } = await import('../probes/server-transport.ts');
  const within = () => ({ deadlineMs: budget(), signal });
  const [grpc, routes] = await Promise.all([
    afterGate(gate, grpcAddress.host, grpcAddress.port, () =>
      timed(timer, 'grpc_health', () => probeServerGrpc(grpcAddress, options.serverTls, within())),
    ),
    probe.routes ? probeRoutes(options, files, location.httpBase, grpcAddress.host, within, warnings, gate, timer) : undefined,
  ]);
  const server: ServerProbes = { location, ...grpc.result, ...(grpc.settling === undefined ? {} : { settling: grpc.settling }) };
  return routes === undefined ? { server } : { server, routes };
}

/** Dials `endpoint`, after its admission `gate` in a fresh pod. */
async function dialAfterGate(
  endpoint: string,
  gate: AdmissionGate | undefined,
  budget: Budget,
  signal: AbortSignal,
  timer: ProbeTimer | undefined,
): Promise<DialResult> {
  const target = dialTarget(endpoint);
  const settling = gate === undefined || !target.ok ? undefined : await gate(target.host, target.port);
  const result = await timed(timer, 'dial', () => dialTcp(endpoint, { deadlineMs: budget(), signal }));
  return settling === undefined ? result : { ...result, settling };
}

/**
 * Dials every distinct published endpoint of the backends that have a remote tier, {@link DIAL_CONCURRENCY}
 * at a time, each after its admission `gate` in a fresh pod.
 */
export async function dialEndpoints(
  state: ClusterState,
  budget: Budget,
  signal: AbortSignal,
  gate?: AdmissionGate,
  timer?: ProbeTimer,
): Promise<Map<string, DialResult>> {
  const backends = state.cacheBackends?.ok === true ? state.cacheBackends.items : [];
  const endpoints = [
    ...new Set(backends.flatMap((b) => (b.remoteStorage !== undefined && b.endpoint !== undefined ? [b.endpoint.value] : []))),
  ];
  const results = new Map<string, DialResult>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < endpoints.length; i = next++) {
      const endpoint = endpoints[i] as string;
      results.set(endpoint, await dialAfterGate(endpoint, gate, budget, signal, timer));
    }
  };
  await Promise.all(Array.from({ length: Math.min(DIAL_CONCURRENCY, endpoints.length) }, worker));
  return results;
}
