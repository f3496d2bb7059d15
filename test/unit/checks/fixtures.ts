/**
 * Shared builders for the check tables: small literal ClusterStates, probe results and a fixed `now`.
 * Every builder returns a complete, valid record; overrides replace whole fields.
 */
import type { Check } from '../../../src/checks/check.ts';
import type { CheckName, Code } from '../../../src/checks/registry.ts';
import type { CheckInput } from '../../../src/checks/run.ts';
import { EVENT_VIEWS, eventViews } from '../../../src/cluster/state/event-views.ts';
import { POD_VIEWS, podViews, type PodRead } from '../../../src/cluster/state/pod-views.ts';
import type { ClusterState } from '../../../src/cluster/state/state.ts';
import type {
  DialResult,
  HttpResult,
  ProbeResults,
  RouteProbes,
  ServerProbes,
  Settling,
  SnapshotBody,
} from '../../../src/probes/results.ts';
import type { CacheBackend } from '../../../src/cluster/kinds/cache-backend.ts';
import type { CachePolicy } from '../../../src/cluster/kinds/cache-policy.ts';
import type { CacheTenant } from '../../../src/cluster/kinds/cache-tenant.ts';
import type { Condition } from '../../../src/cluster/kinds/conditions.ts';
import type { EventRecord } from '../../../src/cluster/kinds/event.ts';
import type { Pod, PodRequests } from '../../../src/cluster/kinds/pod.ts';
import type { Read } from '../../../src/cluster/kinds/kind.ts';

/** The run's reference instant. */
export const NOW = new Date('2025-06-01T12:00:00.000Z');
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** RFC 3339 time `ms` before NOW (negative: in the future). */
export function ago(ms: number): string {
  return new Date(NOW.getTime() - ms).toISOString();
}

// ---------------------------------------------------------------------------------------------
// Cluster objects

export function ok<T>(items: readonly T[]): Read<T> {
  return { ok: true, items };
}

export function failed(error: string): Read<never> {
  return { ok: false, error };
}

export function cond(type: string, status: string, reason = '', message = ''): Condition {
  return { type, status, reason, message };
}

/** Removes optional fields from a record (builders cannot set a field to "absent" by override). */
export function omit<T extends object, K extends keyof T>(o: T, ...keys: K[]): Omit<T, K> {
  const out: Record<PropertyKey, unknown> = { ...(o as Record<PropertyKey, unknown>) };
  for (const k of keys) delete out[k];
  return out as Omit<T, K>;
}

/** A bare CacheBackend `ns1/be` (uid `be-uid`): no selector, no storage, no status. */
export function backend(o: Partial<CacheBackend> = {}): CacheBackend {
  return { namespace: 'ns1', name: 'be', uid: 'be-uid', conditions: [], ...o };
}

export const REDIS = 'redis.ns1.svc:6379';

/**
 * A fully healthy Managed backend `ns1/be`: Ready True, selector app=engine matching 2 pods, KV events
 * flowing (latch an hour ago, last event 10 s ago, 5 prefixes) and a published endpoint.
 */
export function healthy(o: Partial<CacheBackend> = {}): CacheBackend {
  return backend({
    matchLabels: { app: 'engine' },
    remoteStorage: { ownership: 'Managed' },
    conditions: [cond('Ready', 'True', 'Ready', 'backend is ready')],
    matchedEnginePods: 2,
    firstKVEventObservedAt: ago(HOUR),
    indexParticipation: { prefixCount: 5, lastEventAt: ago(10 * SECOND) },
    endpoint: { value: REDIS, field: 'status.remoteStorage.endpoint' },
    ...o,
  });
}

/** A pod as a table writes it: its record, and its requests when it waits for a node. */
export type PodFixture = Pod & { readonly requests?: PodRequests };

/** A Pod in `ns1` with uid `<name>-uid` and no labels or annotations. */
export function pod(name: string, o: Partial<PodFixture> = {}): PodFixture {
  return { namespace: 'ns1', name, uid: `${name}-uid`, labels: {}, annotations: {}, ...o };
}

export interface EventOverrides {
  readonly reason?: string;
  readonly message?: string;
  readonly time?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly uid?: string;
}

/** A normalised Event about Pod `ns1/p` (uid `p-uid`), reason NoMatchingCacheBackend, 1 minute old. */
export function event(o: EventOverrides = {}): EventRecord {
  return {
    reason: o.reason ?? 'NoMatchingCacheBackend',
    message: o.message ?? 'no CacheBackend selects this pod',
    time: o.time ?? ago(MINUTE),
    involved: { kind: o.kind ?? 'Pod', namespace: o.namespace ?? 'ns1', name: o.name ?? 'p', uid: o.uid ?? 'p-uid' },
  };
}

/** An InjectedByCacheBackend Event about the pod with the given uid. */
export function injectedEvent(uid: string, o: EventOverrides = {}): EventRecord {
  return event({ reason: 'InjectedByCacheBackend', message: 'injected', uid, ...o });
}

/** A CacheTenant `ns1/t1` with tenantID `tenant-a` and no quota, count or conditions. */
export function tenant(o: Partial<CacheTenant> = {}): CacheTenant {
  return { namespace: 'ns1', name: 't1', uid: 't1-uid', tenantID: 'tenant-a', conditions: [], ...o };
}

export function policy(namespace: string, name: string): CachePolicy {
  return { namespace, name, uid: `${namespace}-${name}-uid` };
}

/** What a table gives of a state: the reads, with its pods written as {@link PodFixture}s. */
export type StateFixture = Omit<Partial<ClusterState>, 'pods'> & { readonly pods?: Read<PodFixture> };

/**
 * A ClusterState whose five upstream lists succeeded empty (the other reads not gathered), with
 * overrides; the views of the pod and Event lists (`installPods`, `selectedPods`, `pendingPodRequests`,
 * `injectionEvents`, `noMatchEvents`) are what a run would have gathered from the given pods, Events
 * and CacheBackends, unless given too.
 */
export function state(o: StateFixture = {}): ClusterState {
  const { pods = ok([]), ...rest } = o;
  const reads: Read<PodRead> = pods.ok
    ? ok(pods.items.map(({ requests, ...pod }) => (requests === undefined ? { pod } : { pod, requests })))
    : pods;
  const backends = o.cacheBackends ?? ok([]);
  const events = o.events ?? ok([]);
  return {
    cacheBackends: ok([]),
    events: ok([]),
    cacheTenants: ok([]),
    cachePolicies: ok([]),
    ...podViews(
      reads,
      backends.ok ? { kind: 'known', items: backends.items } : { kind: 'failed', error: backends.error },
      new Set(POD_VIEWS),
    ),
    ...eventViews(events, new Set(EVENT_VIEWS)),
    ...rest,
  };
}

// ---------------------------------------------------------------------------------------------
// Probes

export const GRPC_TARGET = 'host:9090';
export const HTTP_BASE = 'http://host:8081';

export function response(status: number, body?: SnapshotBody): HttpResult {
  return body === undefined ? { kind: 'response', status } : { kind: 'response', status, body };
}

/**
 * The probes of one server as the cases write them: its gRPC port's results and its listener's in one
 * object, each port's wait under `settling`.
 */
export interface ServerOverrides extends Partial<Omit<ServerProbes, 'settling'>>, Partial<Omit<RouteProbes, 'settling' | 'base'>> {
  readonly settling?: { readonly grpc?: Settling; readonly http?: Settling };
}

/**
 * The probe results of a located, fully healthy server, with overrides: the server's, and its
 * listener's routes when it was located (a server that was not has no routes to probe).
 */
export function probed(o: ServerOverrides = {}): Pick<ProbeResults, 'server' | 'routes'> {
  const { settling, snapshot, policy, probe, tokenSent, ...grpc } = o;
  const server: ServerProbes = {
    location: { kind: 'found', grpcTarget: GRPC_TARGET, httpBase: HTTP_BASE },
    health: { kind: 'status', status: 'SERVING' },
    ...grpc,
    ...(settling?.grpc === undefined ? {} : { settling: settling.grpc }),
  };
  if (server.location.kind !== 'found') return { server };
  const routes: RouteProbes = {
    base: server.location.httpBase,
    snapshot: snapshot ?? response(200, { kind: 'json' }),
    policy: policy ?? response(401),
    probe: probe ?? response(401),
    tokenSent: tokenSent ?? true,
    ...(settling?.http === undefined ? {} : { settling: settling.http }),
  };
  return { server, routes };
}

/** The gRPC probe results of {@link probed}: a located, SERVING server unless overridden. */
export function serverOf(o: ServerOverrides = {}): ServerProbes {
  const { server } = probed(o);
  if (server === undefined) throw new Error('probed() always gives server probes');
  return server;
}

export function dials(entries: Readonly<Record<string, DialResult>>): ReadonlyMap<string, DialResult> {
  return new Map(Object.entries(entries));
}

// ---------------------------------------------------------------------------------------------
// Inputs and tables

export interface InputOverrides {
  readonly state?: ClusterState;
  readonly probes?: ProbeResults;
  readonly now?: Date;
  readonly namespace?: string;
}

/** A CheckInput at NOW, cluster-wide, config-only (no probes) unless overridden. */
export function input(o: InputOverrides = {}): CheckInput {
  return { state: o.state ?? state(), probes: o.probes ?? {}, now: o.now ?? NOW, namespace: o.namespace ?? '' };
}

/** Shorthand: an input whose state has the given reads. */
export function given(s: StateFixture, o: Omit<InputOverrides, 'state'> = {}): CheckInput {
  return input({ ...o, state: state(s) });
}

/** A fact a message must carry: a substring, or a pattern. */
export type Fact = string | RegExp;

/**
 * One expected finding: code, resource (undefined: the property must be absent), facts the message
 * must carry, and facts it must not carry.
 */
export type Expected = readonly [code: Code, resource: string | undefined, facts?: readonly Fact[], absent?: readonly Fact[]];

export interface Case {
  readonly name: string;
  readonly input: CheckInput;
  readonly expected: readonly Expected[];
}

/** The table of one check: every case runs `check` alone. Every `*.cases.ts` exports its tables. */
export interface CheckTable {
  readonly check: Check;
  readonly cases: readonly Case[];
}

/** One expected finding of a whole run through `judge()`: the check is part of the expectation. */
export type JudgeExpected = readonly [check: CheckName, code: Code, resource: string | undefined, facts?: readonly Fact[]];

export interface JudgeCase {
  readonly name: string;
  readonly input: CheckInput;
  readonly expected: readonly JudgeExpected[];
}
