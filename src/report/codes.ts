import type { Status } from './status.ts';

/**
 * The names of the checks, in the order they run. The nine upstream checks keep upstream's order;
 * checks of our own come after them. The strings are part of the report contract (`check` field).
 */
export const CHECK_NAMES = [
  'ServerReachability',
  'SnapshotReachability',
  'PolicyReachability',
  'ProbeReachability',
  'CacheBackendHealth',
  'EnginePodInjectionAudit',
  'OrphanPodCheck',
  'CacheTenantHealth',
  'CachePolicyCoverage',
  'NamespaceScope',
  'NodeFit',
  'ImagePullability',
  'NetworkPolicyReachability',
] as const;

/** One of the check names of {@link CHECK_NAMES}. */
export type CheckName = (typeof CHECK_NAMES)[number];

/**
 * What the code table says about one finding code. A code's status never varies; its check does only
 * for API001, which any Kubernetes check emits when one of its reads failed.
 */
export interface CodeSpec {
  readonly status: Status;
  readonly checks: readonly CheckName[];
  /** One line for `inferencecache codes` and the generated docs. */
  readonly meaning: string;
}

const K8S_CHECKS = [
  'CacheBackendHealth',
  'EnginePodInjectionAudit',
  'OrphanPodCheck',
  'CacheTenantHealth',
  'CachePolicyCoverage',
] as const satisfies readonly CheckName[];

/**
 * THE code table: the contract of the report. Codes are permanent: never renumber or reuse one;
 * retire it instead. `docs/codes.md` is generated from this table and a test keeps the two equal.
 */
export const CODES = {
  API001: { status: 'FAIL', checks: [...K8S_CHECKS, 'NodeFit', 'ImagePullability'], meaning: 'A Kubernetes read that a check needed failed, so that check could not judge.' },
  SV001: { status: 'FAIL', checks: ['ServerReachability'], meaning: 'The gRPC health check of the cache-plane server failed, or the server could not be located.' },
  SV002: { status: 'FAIL', checks: ['ServerReachability'], meaning: 'The cache-plane server answered its health check with a status other than SERVING.' },
  SV003: { status: 'OK', checks: ['ServerReachability'], meaning: 'The cache-plane server reports SERVING over gRPC.' },
  SN001: { status: 'FAIL', checks: ['SnapshotReachability'], meaning: 'GET /snapshot could not be sent, did not connect, or answered an unexpected HTTP status.' },
  SN002: { status: 'WARN', checks: ['SnapshotReachability'], meaning: 'GET /snapshot answered 200 but its body was unreadable, not JSON, or over the size cap.' },
  SN003: { status: 'INFO', checks: ['SnapshotReachability'], meaning: 'GET /snapshot answered 200 although no bearer token was sent.' },
  SN004: { status: 'OK', checks: ['SnapshotReachability'], meaning: 'GET /snapshot answered 200 with a JSON body.' },
  SN005: { status: 'WARN', checks: ['SnapshotReachability'], meaning: 'GET /snapshot is reachable but refused the token (HTTP 401 or 403).' },
  PL001: { status: 'FAIL', checks: ['PolicyReachability'], meaning: 'The /policy route could not be reached or is not mounted (HTTP 404).' },
  PL002: { status: 'OK', checks: ['PolicyReachability'], meaning: 'The /policy route is mounted (2xx, 401, 403 or 405 to HEAD).' },
  PL003: { status: 'WARN', checks: ['PolicyReachability'], meaning: 'The /policy route answered HEAD with an unexpected HTTP status.' },
  PB001: { status: 'FAIL', checks: ['ProbeReachability'], meaning: 'The /probe route could not be reached or is not mounted (HTTP 404).' },
  PB002: { status: 'OK', checks: ['ProbeReachability'], meaning: 'The /probe route is mounted (2xx, 401, 403 or 405 to HEAD).' },
  PB003: { status: 'WARN', checks: ['ProbeReachability'], meaning: 'The /probe route answered HEAD with an unexpected HTTP status.' },
  CB001: { status: 'WARN', checks: ['CacheBackendHealth'], meaning: 'The CacheBackend has no Ready condition, or it is not True.' },
  CB002: { status: 'WARN', checks: ['CacheBackendHealth'], meaning: 'The CacheBackend engineSelector matches no engine pod.' },
  CB003: { status: 'WARN', checks: ['CacheBackendHealth'], meaning: 'No KV event has ever been observed for the CacheBackend.' },
  CB004: { status: 'WARN', checks: ['CacheBackendHealth'], meaning: 'The last KV event of the CacheBackend is older than the 2-minute freshness window.' },
  CB005: { status: 'WARN', checks: ['CacheBackendHealth'], meaning: 'The remote tier of the CacheBackend has no published endpoint, or it does not accept TCP connections.' },
  CB006: { status: 'OK', checks: ['CacheBackendHealth'], meaning: 'The CacheBackend passed every health axis.' },
  CB007: { status: 'WARN', checks: ['CacheBackendHealth'], meaning: "The controller's functional self-test of the CacheBackend is failing." },
  EP001: { status: 'WARN', checks: ['EnginePodInjectionAudit'], meaning: 'An engine pod selected by a CacheBackend carries no injection marker.' },
  EP002: { status: 'OK', checks: ['EnginePodInjectionAudit'], meaning: 'An engine pod selected by a CacheBackend was injected (validated annotation or Event).' },
  EP003: { status: 'WARN', checks: ['EnginePodInjectionAudit'], meaning: 'An engine pod is selected by more than one CacheBackend in its namespace.' },
  OP001: { status: 'WARN', checks: ['OrphanPodCheck'], meaning: 'A pod recorded a NoMatchingCacheBackend Event in the last 24 hours.' },
  CT001: { status: 'WARN', checks: ['CacheTenantHealth'], meaning: 'The CacheTenant has exceeded its index-entry quota.' },
  CT002: { status: 'OK', checks: ['CacheTenantHealth'], meaning: 'The CacheTenant is within its quota.' },
  CP001: { status: 'INFO', checks: ['CachePolicyCoverage'], meaning: 'A namespace with CacheBackends has no CachePolicy; server defaults apply.' },
  CP002: { status: 'OK', checks: ['CachePolicyCoverage'], meaning: 'A namespace with CacheBackends has exactly one CachePolicy.' },
  CP003: { status: 'WARN', checks: ['CachePolicyCoverage'], meaning: 'A namespace has more than one CachePolicy; all but the first by name are inert.' },
  NS001: { status: 'FAIL', checks: ['NamespaceScope'], meaning: 'The namespace given with --namespace does not exist, so nothing in it was checked.' },
  NS002: { status: 'INFO', checks: ['NamespaceScope'], meaning: 'Whether the namespace given with --namespace exists could not be verified.' },
  NF001: { status: 'FAIL', checks: ['NodeFit'], meaning: 'A pending pod of the install fits no Ready, schedulable node: no single node has the allocatable for all of its requests.' },
  NF002: { status: 'WARN', checks: ['NodeFit'], meaning: "A pod of the install is Unschedulable although some node's allocatable would fit it (capacity in use, taints, affinity)." },
  NF003: { status: 'OK', checks: ['NodeFit'], meaning: 'A pending pod of the install fits the allocatable of at least one Ready, schedulable node.' },
  IP001: { status: 'WARN', checks: ['ImagePullability'], meaning: 'An image pull secret named by a pod of the install or its ServiceAccount does not exist.' },
  IP002: { status: 'WARN', checks: ['ImagePullability'], meaning: 'An image pull secret has a type the kubelet does not take registry credentials from.' },
  IP003: { status: 'WARN', checks: ['ImagePullability'], meaning: 'An image pull secret lacks its credentials key, is not valid JSON, or has no auths object.' },
  IP004: { status: 'WARN', checks: ['ImagePullability'], meaning: 'A container of the install waits in ImagePullBackOff or ErrImagePull.' },
  IP005: { status: 'INFO', checks: ['ImagePullability'], meaning: 'An image pull secret could not be read (e.g. forbidden), so it was not verified.' },
  IP006: { status: 'OK', checks: ['ImagePullability'], meaning: 'An image pull secret exists and holds well-formed registry credentials.' },
  NP001: { status: 'WARN', checks: ['NetworkPolicyReachability'], meaning: "A :8081 probe got no answer and the NetworkPolicies selecting the server pod do not admit the doctor's pod to port 8081." },
  NP002: { status: 'INFO', checks: ['NetworkPolicyReachability'], meaning: 'A :8081 probe got no answer from outside the cluster; lists the sources the server pod\'s NetworkPolicies admit.' },
  NP003: { status: 'INFO', checks: ['NetworkPolicyReachability'], meaning: 'A :8081 probe got no answer, but no NetworkPolicy blocks the doctor: the cause is elsewhere.' },
  NP004: { status: 'INFO', checks: ['NetworkPolicyReachability'], meaning: 'A :8081 probe got no answer and whether a NetworkPolicy is the cause could not be judged.' },
} as const satisfies Record<string, CodeSpec>;

/** A finding code of the table. */
export type Code = keyof typeof CODES;

/** The codes a given check may emit, so that a check cannot emit another check's code. */
export type CodeOf<C extends CheckName> = {
  [K in Code]: C extends (typeof CODES)[K]['checks'][number] ? K : never;
}[Code];

/** The codes in table order. */
export const ALL_CODES = Object.keys(CODES) as readonly Code[];
