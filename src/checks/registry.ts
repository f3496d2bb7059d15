import { READS, SERVER_DISCOVERY, withSources } from '../cluster/state/reads.ts';
import type { ReadName } from '../cluster/state/state.ts';
import type { Finding } from '../report/finding.ts';
import { cacheBackendHealth } from './cachebackend-health.ts';
import { cachePolicyCoverage } from './cachepolicy-coverage.ts';
import { controllerLease } from './controller-lease.ts';
import { cacheTenantHealth } from './cachetenant-health.ts';
import type { Check, Declaration, ProbeName } from './check.ts';
import { enginePodInjectionAudit } from './engine-pod-injection.ts';
import { imagePullability } from './image-pull.ts';
import { namespaceScope } from './namespace-scope.ts';
import { networkPolicyReachability } from './network-policy.ts';
import { nodeFit } from './node-fit.ts';
import { OFFLINE_INPUT } from './offline-input.ts';
import { orphanPodCheck } from './orphan-pods.ts';
import { policyReachability } from './policy-reachability.ts';
import { probeReachability } from './probe-reachability.ts';
import { remoteStorageReadiness } from './remote-storage.ts';
import { runCheck, type CheckInput } from './run.ts';
import { serverReachability } from './server-reachability.ts';
import { serverTls } from './server-tls.ts';
import { snapshotReachability } from './snapshot-reachability.ts';
import { SUPPRESSIONS } from './suppressions.ts';
import type { ApiAccess } from '../cluster/kinds/access.ts';

/**
 * THE registry: every check, in its fixed run order. Upstream's nine come first, in upstream's order;
 * ours follow them. Adding a check is its file, one line here, and its test table.
 */
export const CHECKS = [
  serverReachability,
  snapshotReachability,
  policyReachability,
  probeReachability,
  cacheBackendHealth,
  enginePodInjectionAudit,
  orphanPodCheck,
  cacheTenantHealth,
  cachePolicyCoverage,
  namespaceScope,
  nodeFit,
  imagePullability,
  networkPolicyReachability,
  serverTls,
  remoteStorageReadiness,
  controllerLease,
] as const;

/**
 * Every declaration a run derives from: the checks, then the suppression stage that runs on their
 * findings, then the stage that judges the files of `doctor -f`. The code table, the gather plan and
 * the chart's RBAC come from these.
 */
export const DECLARATIONS: readonly Declaration[] = [...CHECKS, SUPPRESSIONS, OFFLINE_INPUT];

type Registered = (typeof CHECKS)[number];

/** The name of a registered check: the `check` field of its findings. */
export type CheckName = Registered['name'];

type CodesOf<T> = T extends Check<string, infer C> ? C : never;

/** A finding code of some registered check. */
export type Code = CodesOf<Registered>;

/**
 * Runs every check in order, yielding each one's findings as it is done, so that a caller can let
 * other work in between two checks (the run does: see doctor/time-slices.ts).
 */
export function* judgeByCheck(input: CheckInput, checks: readonly Check[] = CHECKS): Generator<Finding[], void> {
  for (const check of checks) yield runCheck(check, input);
}

/** Runs every check in order and concatenates their findings. */
export function judge(input: CheckInput, checks: readonly Check[] = CHECKS): Finding[] {
  return [...judgeByCheck(input, checks)].flat();
}

/**
 * Which probes a run makes: none under `--config-only`; all but the routes of the server's
 * controller-facing listener when `controllerListener` is false (a monitor not let probe it).
 */
export interface ProbeChoice {
  readonly configOnly: boolean;
  /** Whether the `:8081` routes are probed; true unless said otherwise (the doctor always probes them). */
  readonly controllerListener?: boolean;
}

/** Whether a run of `options` makes probe `name`. */
function probes(options: ProbeChoice, name: ProbeName): boolean {
  return !options.configOnly && (name !== 'routes' || options.controllerListener !== false);
}

/** The declarations a run judges with: those whose required probes the run makes. */
export function activeDeclarations<D extends Declaration>(options: ProbeChoice, checks: readonly D[]): D[] {
  return checks.filter((check) =>
    Object.entries(check.probes).every(([name, mode]) => mode !== 'required' || probes(options, name as ProbeName)),
  );
}

/** What one run must gather and probe, derived from what its checks declare. */
export interface RunPlan {
  readonly reads: ReadonlySet<ReadName>;
  readonly probes: ReadonlySet<ProbeName>;
}

/**
 * The plan of a run: a check that requires a probe the run does not make (none under `--config-only`)
 * does not run and its reads are not gathered; every other check's reads are.
 */
export function planRun(options: ProbeChoice, checks: readonly Declaration[] = DECLARATIONS): RunPlan {
  const active = activeDeclarations(options, checks);
  return {
    reads: new Set(active.flatMap((check) => Object.keys(check.reads) as ReadName[])),
    probes: new Set(active.flatMap((check) => (Object.keys(check.probes) as ProbeName[]).filter((name) => probes(options, name)))),
  };
}

/**
 * Every API access some run may take, each once (several reads may be views of one list): the reads
 * the checks declare, with the reads they are derived from, and the Service discovery of the server
 * probes. The chart's ClusterRole must grant exactly these.
 */
export function apiAccesses(checks: readonly Declaration[] = DECLARATIONS): ApiAccess[] {
  const reads = new Set(checks.flatMap((check) => Object.keys(check.reads) as ReadName[]));
  const probed = checks.some((check) => check.probes.server !== undefined || check.probes.routes !== undefined);
  const accesses = [...withSources(reads)].map((name) => READS[name].access);
  const unique = new Map(accesses.map((access) => [JSON.stringify(access), access]));
  return [...unique.values(), ...(probed ? [SERVER_DISCOVERY] : [])];
}
