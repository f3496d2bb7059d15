import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { judge, planRun, type RunPlan } from './checks/registry.ts';
import type { DoctorOptions } from './cli/options.ts';
import { KubeApi } from './cluster/api.ts';
import { SERVER_SERVICE, discoverServerNamespace } from './cluster/discovery.ts';
import { gatherClusterState } from './cluster/gather.ts';
import { loadKubeConfig } from './cluster/kubeconfig.ts';
import { readDoctorPod } from './cluster/pod-identity.ts';
import type { ClusterState } from './cluster/state.ts';
import { joinHostPort } from './go/hostport.ts';
import type { GrpcPortAddress } from './probes/server-transport.ts';
import type { DialResult, ProbeResults, ServerLocation, ServerProbes } from './probes/results.ts';
import { dialTcp } from './probes/tcp-dial.ts';
import { readBearerToken } from './probes/token.ts';
import { EXIT_INCOMPLETE, exitCodeOf, makeReport, type Attempt, type Finding, type Report } from './report/finding.ts';
import { rank } from './report/status.ts';
import { fileErrorReason, interruptionOf } from './text/errors.ts';
import { codeGuides } from './checks/codes.ts';
import { UsageError } from './cli/options.ts';
import { formatGoDuration } from './go/duration.ts';
import { annotationRules } from './suppress/annotations.ts';
import { applySuppressions } from './suppress/apply.ts';
import { parseSuppressFile } from './suppress/file.ts';
import { RuleError, type SuppressionRule } from './suppress/rule.ts';
import type { DoctorPod } from './cluster/pod-identity.ts';

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
  /** Takes the progress line of each `--wait` attempt (for stderr). */
  readonly progress?: (line: string) => Promise<void>;
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

async function probeServer(
  options: DoctorOptions,
  api: KubeApi,
  files: PodFiles,
  deadline: number,
  signal: AbortSignal,
  warnings: string[],
): Promise<ServerProbes> {
  const located = await locateServer(options, api, signal);
  if (!('grpc' in located)) {
    warnings.push(`${located.location.error}; the server probes are skipped`);
    return { location: located.location, tokenSent: false };
  }
  const { location, grpc: grpcAddress } = located;
  const bearer = await readBearerToken(options.snapshotTokenFile, {
    controllerToken: files.controllerToken,
    serviceAccountToken: join(files.serviceAccountDir, 'token'),
  });
  if (bearer.warning !== undefined) warnings.push(bearer.warning);
  // The gRPC and HTTP clients load only for a run that probes the server (never for --config-only).
  const [{ probeServerGrpc }, { probeRoute, probeSnapshot }] = await Promise.all([
    import('./probes/server-transport.ts'),
    import('./probes/http-route.ts'),
  ]);
  const budget = () => ({ deadlineMs: probeBudget(deadline), signal });
  const [grpc, snapshot, policy, probe] = await Promise.all([
    probeServerGrpc(grpcAddress, options.serverTls, budget()),
    probeSnapshot(`${location.httpBase}/snapshot`, { ...budget(), token: bearer.token }),
    probeRoute(`${location.httpBase}/policy`, budget()),
    probeRoute(`${location.httpBase}/probe`, budget()),
  ]);
  return { location, ...grpc, snapshot, policy, probe, tokenSent: bearer.token !== '' };
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

/** The first pause between two attempts of `--wait` when an attempt is quick. */
export const WAIT_MIN_PAUSE_MS = 1_000;
/** The longest pause between two attempts of `--wait`. */
export const WAIT_MAX_PAUSE_MS = 30_000;

/**
 * The pause before attempt `next` (2, 3, …): as long as the last attempt took, at least
 * {@link WAIT_MIN_PAUSE_MS}, doubled for each attempt after the second, at most
 * {@link WAIT_MAX_PAUSE_MS}. A big cluster, whose reads take long, is asked less often.
 */
export function pauseBefore(next: number, lastAttemptMs: number): number {
  return Math.min(WAIT_MAX_PAUSE_MS, Math.max(WAIT_MIN_PAUSE_MS, lastAttemptMs) * 2 ** Math.max(0, next - 2));
}

/** The findings of one attempt, before suppression, and what it gathered (the annotations). */
interface AttemptResult {
  readonly findings: Finding[];
  readonly state: ClusterState;
}

/**
 * One attempt: gather what the checks declare and probe the server side by side under the attempt's
 * deadline (`--timeout`; each probe with its own, shorter one), then judge.
 */
async function attempt(options: DoctorOptions, context: RunContext, clock: AttemptClock, warnings: string[]): Promise<AttemptResult> {
  const { api, plan, self, environment } = context;
  const { now, signal } = clock;
  const deadline = now.getTime() + options.timeoutMs;
  const serverProbes = plan.probes.has('server') ? probeServer(options, api, environment.files, deadline, signal, warnings) : undefined;
  const state = await gatherClusterState(
    api,
    { reads: plan.reads, namespace: options.namespace, ...(self === undefined ? {} : { self }) },
    signal,
  );
  const dials = plan.probes.has('dials') ? await dialEndpoints(state, deadline, signal) : undefined;
  const server = await serverProbes;
  const probes: ProbeResults = { ...(server === undefined ? {} : { server }), ...(dials === undefined ? {} : { dials }) };
  const findings = judge({ state, probes, now, namespace: options.namespace, ...(self === undefined ? {} : { self }) });
  if (state.namespaces?.ok === false && someListRead(state)) {
    // Said only when other reads got through: an unreachable API server is reported by the checks.
    warnings.push(`suppression annotations on Namespaces were not applied: reading the Namespaces failed: ${state.namespaces.error}`);
  }
  return { findings, state };
}

/** Whether some list of the state was read (the API server answered at least that). */
function someListRead(state: ClusterState): boolean {
  return Object.values(state).some((read: unknown) => typeof read === 'object' && read !== null && 'ok' in read && read.ok === true);
}

/** When an attempt starts (its reference instant) and the signal that ends it at `--timeout`. */
interface AttemptClock {
  readonly now: Date;
  readonly signal: AbortSignal;
}

/** A clock started now: `--timeout` from this instant, or the interrupt. */
function startClock(options: DoctorOptions, environment: RunEnvironment): AttemptClock {
  return { now: environment.now(), signal: overallSignal(options.timeoutMs, environment.interrupt) };
}

/** What stays the same from one attempt to the next. */
interface RunContext {
  readonly api: KubeApi;
  readonly plan: RunPlan;
  readonly self: DoctorPod | undefined;
  readonly environment: RunEnvironment;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** How many findings of each code count for the exit code (at or above `failOn`), codes in emission order. */
function countedByCode(findings: readonly Finding[], failOn: DoctorOptions['failOn']): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) if (rank(f.status) >= rank(failOn)) counts.set(f.code, (counts.get(f.code) ?? 0) + 1);
  return counts;
}

/** The progress line of an attempt: its outcome, what still counts, and when the next attempt starts. */
function progressLine(
  a: Attempt,
  counted: ReadonlyMap<string, number>,
  failOn: DoctorOptions['failOn'],
  pauseMs: number | undefined,
): string {
  const head = `attempt ${a.attempt} after ${formatGoDuration(Math.round(a.elapsedMs / 100) * 100)}: exit ${a.exitCode}`;
  if (counted.size === 0) return `${head}, nothing at or above --fail-on ${failOn.toLowerCase()} remains`;
  const still = [...counted].map(([code, n]) => (n === 1 ? code : `${code} x${n}`)).join(', ');
  const next = pauseMs === undefined ? 'the wait is over' : `next attempt in ${formatGoDuration(pauseMs)}`;
  return `${head}, still counted: ${still}; ${next}`;
}

/**
 * The rules of `--suppress` and `--suppress-file`, every code checked against the code table.
 *
 * @throws UsageError for a file that cannot be read or parsed, or a rule naming no known code.
 */
async function writtenRules(options: DoctorOptions, known: ReadonlyMap<string, unknown>): Promise<SuppressionRule[]> {
  let fromFile: SuppressionRule[] = [];
  if (options.suppressFile !== undefined) {
    let text: string;
    try {
      text = await readFile(options.suppressFile, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --suppress-file ${JSON.stringify(options.suppressFile)} (${fileErrorReason(err)})`);
    }
    try {
      fromFile = parseSuppressFile(text, options.suppressFile);
    } catch (err) {
      throw err instanceof RuleError ? new UsageError(`invalid --suppress-file: ${err.message}`) : err;
    }
  }
  const rules = [...options.suppress, ...fromFile];
  for (const rule of rules) {
    if (!known.has(rule.code)) {
      const where = rule.ref.source === '--suppress' ? `--suppress ${rule.ref.match}` : rule.ref.source;
      throw new UsageError(`${where}: unknown code ${rule.code} ('inferencecache codes' lists them)`);
    }
  }
  return rules;
}

/**
 * One doctor run: load the kubeconfig and the suppression rules, then attempt: gather, probe and
 * judge, apply the suppressions (written and annotated), and build the report (incomplete when
 * interrupted). Under `--wait`, attempt again after a growing pause while a finding counts and the
 * wait lasts, with a progress line per attempt; the last attempt's report is the run's.
 *
 * @throws KubeConfigError when there is no cluster to talk to; UsageError for unusable suppression rules.
 */
export async function runDoctor(options: DoctorOptions, environment: RunEnvironment): Promise<RunResult> {
  // The first attempt's --timeout counts from the start of the run, loading included.
  const first = startClock(options, environment);
  const { files, interrupt } = environment;
  const guides = codeGuides(options.docsBase);
  const written = await writtenRules(options, guides);
  const api = new KubeApi(loadKubeConfig(options, environment.env, files.serviceAccountDir), environment.env);
  const self = await readDoctorPod(environment.pod, options.podLabelsFile ?? files.podLabels);
  const context: RunContext = { api, plan: planRun(options), self, environment };
  const started = Date.now();
  const attempts: Attempt[] = [];
  for (;;) {
    const warnings: string[] = [];
    const attemptStart = Date.now();
    const clock = attempts.length === 0 ? first : startClock(options, environment);
    const { findings, state } = await attempt(options, context, clock, warnings);
    const outcome = applySuppressions(findings, [...written, ...annotationRules(state)], environment.now());
    const incomplete = interruptionOf(interrupt);
    const number = attempts.length + 1;
    const exitCode = exitCodeOf(outcome.findings, options.failOn);
    const counted = countedByCode(outcome.findings, options.failOn);
    const done: Attempt = {
      attempt: number,
      elapsedMs: Date.now() - started,
      exitCode: incomplete === undefined ? exitCode : EXIT_INCOMPLETE,
      counted: [...counted.keys()],
    };
    attempts.push(done);
    const waiting = options.waitMs > 0;
    const remaining = options.waitMs - (Date.now() - started);
    const again = waiting && incomplete === undefined && exitCode !== 0 && remaining > 0;
    const pauseMs = again ? Math.min(remaining, pauseBefore(number + 1, Date.now() - attemptStart)) : undefined;
    if (waiting && incomplete === undefined) await environment.progress?.(progressLine(done, counted, options.failOn, pauseMs));
    if (pauseMs !== undefined) await pause(pauseMs, interrupt);
    const stopped = interruptionOf(interrupt);
    if (pauseMs === undefined || stopped !== undefined) {
      const why = incomplete ?? (stopped === undefined ? undefined : `${stopped} while waiting after attempt ${number}`);
      const report = makeReport(outcome.findings, {
        incomplete: why,
        failOn: options.failOn,
        suppressed: outcome.suppressed,
        ...(waiting ? { attempts } : {}),
        guides,
      });
      return { report, warnings };
    }
  }
}
