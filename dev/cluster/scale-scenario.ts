// The scale scenario of docs/architecture.md#bars (2,000 CacheBackends in 50 namespaces, 20,000 pods of which half are
// engine pods, 2,000 CacheTenants, 60 CachePolicies, 20,000 Events), or a fraction of it, built in a
// test control plane with many requests in flight. What it builds is regular, so the findings a run
// must make can be counted from the parameters alone (`expectedCounts`).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

/** The sizes of a scenario. */
export interface ScaleSize {
  readonly namespaces: number;
  readonly backends: number;
  /** All pods; half of them are engine pods, spread evenly over the backends. */
  readonly pods: number;
  readonly tenants: number;
  readonly policies: number;
  readonly events: number;
}

/** The scenario of docs/architecture.md#bars. */
export const FULL: ScaleSize = { namespaces: 50, backends: 2_000, pods: 20_000, tenants: 2_000, policies: 60, events: 20_000 };

/**
 * Five times the scenario's pods and Events (100,000 each), 2.5 times its CacheBackends and
 * CacheTenants, in the same 50 namespaces: a cluster grows in pods faster than in backends.
 */
export const FIVE_X: ScaleSize = { namespaces: 50, backends: 5_000, pods: 100_000, tenants: 5_000, policies: 60, events: 100_000 };

/** The same scenario at `fraction` of its size (at least one of each). */
export function scaled(fraction: number): ScaleSize {
  const of = (n: number) => Math.max(1, Math.round(n * fraction));
  return {
    namespaces: of(FULL.namespaces),
    backends: of(FULL.backends),
    pods: of(FULL.pods),
    tenants: of(FULL.tenants),
    policies: of(FULL.policies),
    events: of(FULL.events),
  };
}

/** Where to build: the API server, its CA and a token that may create everything. */
export interface Target {
  readonly server: string;
  readonly caFile: string;
  readonly token: string;
}

/**
 * How long a built scenario judges the same: its last KV events are dated this far ahead, its Events
 * stay inside OrphanPodCheck's 24 hours for as long (the API server must keep Events that long:
 * `--event-ttl`), so the bench may keep a populated control plane and run against it again.
 */
export const KEPT_FOR_MS = 20 * 3_600_000;

/** Every backend with an index below this share has no `matchedEnginePods`: the doctor counts its pods live. */
const LIVE_COUNT_EVERY = 10;
/** One engine pod in this many carries no injection annotation (EP001). */
const UNINJECTED_EVERY = 10;
/** One tenant in this many is over its quota (CT001). */
const OVER_QUOTA_EVERY = 20;
/** One Event in this many is a NoMatchingCacheBackend Event about an ordinary pod (OP001). */
const ORPHAN_EVENT_EVERY = 10;

const ns = (i: number, size: ScaleSize) => `scale-${String(i % size.namespaces).padStart(2, '0')}`;
const recent = () => new Date(Date.now() - 5_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** One object of the scenario as {@link buildScenario} creates it: the collection it is POSTed to, and the body. */
export interface ScenarioPost {
  readonly path: string;
  readonly body: { readonly metadata: { readonly name: string; readonly [field: string]: unknown }; readonly [field: string]: unknown };
}

/** Namespace `i` and its `default` ServiceAccount (which a real cluster's controller would create). */
function namespacePosts(i: number, size: ScaleSize): ScenarioPost[] {
  const name = ns(i, size);
  return [
    { path: '/api/v1/namespaces', body: { metadata: { name } } },
    { path: `/api/v1/namespaces/${name}/serviceaccounts`, body: { metadata: { name: 'default' } } },
  ];
}

/** CacheBackend `i`, selecting the engine pods labelled for it. */
function backendPost(i: number, size: ScaleSize): ScenarioPost {
  return {
    path: `/apis/inferencecache.io/v1alpha1/namespaces/${ns(i, size)}/cachebackends`,
    body: {
      apiVersion: 'inferencecache.io/v1alpha1',
      kind: 'CacheBackend',
      metadata: { name: `be-${i}` },
      spec: { runtime: 'VLLM', engineSelector: { matchLabels: { 'inferencecache.io/cache-domain': `engine-${i}` } } },
    },
  };
}

/** The status CacheBackend `i` is given: Ready, fresh, and (but for every {@link LIVE_COUNT_EVERY}th) its pod count. */
function backendStatus(i: number, size: ScaleSize): Record<string, unknown> {
  const live = i % LIVE_COUNT_EVERY === 0;
  return {
    conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: recent() }],
    ...(live ? {} : { matchedEnginePods: enginePodsOf(i, size) }),
    firstKVEventObservedAt: recent(),
    indexParticipation: {
      prefixCount: 10,
      lastEventAt: new Date(Date.now() + KEPT_FOR_MS).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
  };
}

/** Pod `i`: an engine pod of backend `i mod backends` (injected by it, whose uid `uidOf` gives, but for one in ten), or an ordinary one. */
function podPost(i: number, size: ScaleSize, uidOf: (backend: number) => string): ScenarioPost {
  const engines = Math.floor(size.pods / 2);
  const engine = i < engines;
  const backend = i % size.backends;
  const namespace = ns(backend, size);
  const injected = engine && i % UNINJECTED_EVERY !== 0;
  return {
    path: `/api/v1/namespaces/${namespace}/pods`,
    body: {
      metadata: {
        name: engine ? `engine-${i}` : `web-${i}`,
        labels: engine ? { 'inferencecache.io/cache-domain': `engine-${backend}` } : { app: `web-${i % 7}` },
        annotations: injected
          ? { 'inferencecache.io/injected-by': `${namespace}/be-${backend}`, 'inferencecache.io/injected-by-uid': uidOf(backend) }
          : {},
      },
      spec: {
        nodeName: 'scale-node',
        containers: [{ name: 'main', image: 'registry.test/app:v1', resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
      },
    },
  };
}

/** CacheTenant `i`, with a quota of 1,000 index entries. */
function tenantPost(i: number, size: ScaleSize): ScenarioPost {
  return {
    path: `/apis/inferencecache.io/v1alpha1/namespaces/${ns(i, size)}/cachetenants`,
    body: {
      apiVersion: 'inferencecache.io/v1alpha1',
      kind: 'CacheTenant',
      metadata: { name: `t-${i}` },
      spec: { tenantID: `tenant-${i}`, quota: { maxIndexEntries: 1000 } },
    },
  };
}

/** The status CacheTenant `i` is given: over its quota for every {@link OVER_QUOTA_EVERY}th. */
function tenantStatus(i: number): Record<string, unknown> {
  const over = i % OVER_QUOTA_EVERY === 0;
  return {
    indexEntries: over ? 1200 : 10,
    conditions: [{ type: 'QuotaExceeded', status: over ? 'True' : 'False', reason: 'Quota', message: '', lastTransitionTime: recent() }],
  };
}

/** CachePolicy `i`. */
function policyPost(i: number, size: ScaleSize): ScenarioPost {
  return {
    path: `/apis/inferencecache.io/v1alpha1/namespaces/${ns(i, size)}/cachepolicies`,
    body: { apiVersion: 'inferencecache.io/v1alpha1', kind: 'CachePolicy', metadata: { name: `p-${i}` }, spec: {} },
  };
}

/** Event `i`, about an ordinary pod: a NoMatchingCacheBackend one for every {@link ORPHAN_EVENT_EVERY}th, else a Scheduled one. */
function eventPost(i: number, size: ScaleSize): ScenarioPost {
  const engines = Math.floor(size.pods / 2);
  const pod = engines + (i % Math.max(1, size.pods - engines));
  const backend = pod % size.backends;
  const namespace = ns(backend, size);
  const orphan = i % ORPHAN_EVENT_EVERY === 0;
  const at = recent();
  return {
    path: `/api/v1/namespaces/${namespace}/events`,
    body: {
      metadata: { name: `ev-${i}` },
      involvedObject: { kind: 'Pod', apiVersion: 'v1', namespace, name: `web-${pod}` },
      reason: orphan ? 'NoMatchingCacheBackend' : 'Scheduled',
      message: orphan ? 'the pod asked for the cache but no CacheBackend selects it' : 'Successfully assigned',
      type: 'Normal',
      source: { component: 'scale-scenario' },
      firstTimestamp: at,
      lastTimestamp: at,
    },
  };
}

/** The apiVersion and Kind of the objects POSTed to a collection, by the collection's last segment. */
const KIND_OF: Readonly<Record<string, readonly [apiVersion: string, kind: string]>> = {
  namespaces: ['v1', 'Namespace'],
  serviceaccounts: ['v1', 'ServiceAccount'],
  pods: ['v1', 'Pod'],
  events: ['v1', 'Event'],
  cachebackends: ['inferencecache.io/v1alpha1', 'CacheBackend'],
  cachetenants: ['inferencecache.io/v1alpha1', 'CacheTenant'],
  cachepolicies: ['inferencecache.io/v1alpha1', 'CachePolicy'],
};

/** A POSTed object as a file holds it: apiVersion and Kind, the namespace of its collection, a uid, and its status. */
function asStored(post: ScenarioPost, uid: string, status?: Record<string, unknown>): Record<string, unknown> {
  const segments = post.path.split('/');
  const [apiVersion, kind] = KIND_OF[segments.at(-1) ?? ''] ?? ['', ''];
  const at = segments.indexOf('namespaces');
  const namespace = at >= 0 && at < segments.length - 2 ? segments[at + 1] : undefined;
  return {
    apiVersion,
    kind,
    ...post.body,
    metadata: { ...post.body.metadata, ...(namespace === undefined ? {} : { namespace }), uid },
    ...(status === undefined ? {} : { status }),
  };
}

/**
 * The objects of the scenario as a file holds them (`doctor -f`): the very objects
 * {@link buildScenario} creates, in the same order, with apiVersion, Kind, namespace and uid filled
 * in as an API server would, and the status it writes through the status subresource inline.
 */
export function* scenarioObjects(size: ScaleSize): Generator<Record<string, unknown>> {
  const uidOf = (kind: string, i: number) => `00000000-0000-4000-8000-${kind}${String(i).padStart(10, '0')}`;
  for (let i = 0; i < size.namespaces; i++) for (const post of namespacePosts(i, size)) yield asStored(post, uidOf('0a', i));
  for (let i = 0; i < size.backends; i++) yield asStored(backendPost(i, size), uidOf('0b', i), backendStatus(i, size));
  for (let i = 0; i < size.pods; i++)
    yield asStored(
      podPost(i, size, (backend) => uidOf('0b', backend)),
      uidOf('0c', i),
    );
  for (let i = 0; i < size.tenants; i++) yield asStored(tenantPost(i, size), uidOf('0d', i), tenantStatus(i));
  for (let i = 0; i < size.policies; i++) yield asStored(policyPost(i, size), uidOf('0e', i));
  for (let i = 0; i < size.events; i++) yield asStored(eventPost(i, size), uidOf('0f', i));
}

/** A client for many small requests at once: keep-alive, `parallel` connections. */
function client(target: Target, parallel: number) {
  const dispatcher = new Agent({ connections: parallel, pipelining: 1, connect: { ca: readFileSync(target.caFile) } });
  const send = async (
    method: 'POST' | 'PUT' | 'PATCH',
    path: string,
    body: unknown,
    contentType = 'application/json',
  ): Promise<unknown> => {
    for (let attempt = 0; ; attempt++) {
      const res = await request(`${target.server}${path}`, {
        method,
        dispatcher,
        headers: { authorization: `Bearer ${target.token}`, 'content-type': contentType, accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode < 300 || res.statusCode === 409) return text === '' ? undefined : (JSON.parse(text) as unknown);
      if (res.statusCode === 429 && attempt < 20) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      throw new Error(`${method} ${path}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    }
  };
  return { send, close: () => dispatcher.close() };
}

/** Runs `work(i)` for i in [0, n) with at most `parallel` at once. */
async function pool(n: number, parallel: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, n) }, async () => {
      for (let i = next++; i < n; i = next++) await work(i);
    }),
  );
}

/**
 * Builds the scenario: namespaces (with their `default` ServiceAccount), CacheBackends with status
 * written through the status subresource, engine pods (bound, most injected) and ordinary pods,
 * CacheTenants, CachePolicies and Events. `log` hears progress.
 */
export async function buildScenario(
  target: Target,
  size: ScaleSize,
  log: (text: string) => void = () => undefined,
  parallel = 32,
): Promise<void> {
  const api = client(target, parallel);
  const started = Date.now();
  const step = (text: string) => log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`);
  try {
    step(`${size.namespaces} namespaces`);
    await pool(size.namespaces, parallel, async (i) => {
      for (const post of namespacePosts(i, size)) await api.send('POST', post.path, post.body);
    });
    step(`${size.backends} CacheBackends with status`);
    const uids: string[] = [];
    await pool(size.backends, parallel, async (i) => {
      const post = backendPost(i, size);
      const created = (await api.send('POST', post.path, post.body)) as { metadata: { uid: string } };
      uids[i] = created.metadata.uid;
      await api.send(
        'PATCH',
        `${post.path}/${post.body.metadata.name}/status`,
        { status: backendStatus(i, size) },
        'application/merge-patch+json',
      );
    });
    const engines = Math.floor(size.pods / 2);
    step(`${size.pods} pods (${engines} engine pods)`);
    await pool(size.pods, parallel, async (i) => {
      const post = podPost(i, size, (backend) => uids[backend] ?? '');
      await api.send('POST', post.path, post.body);
    });
    step(`${size.tenants} CacheTenants, ${size.policies} CachePolicies`);
    await pool(size.tenants, parallel, async (i) => {
      const post = tenantPost(i, size);
      await api.send('POST', post.path, post.body);
      await api.send(
        'PATCH',
        `${post.path}/${post.body.metadata.name}/status`,
        { status: tenantStatus(i) },
        'application/merge-patch+json',
      );
    });
    await pool(size.policies, parallel, async (i) => {
      const post = policyPost(i, size);
      await api.send('POST', post.path, post.body);
    });
    step(`${size.events} Events`);
    await pool(size.events, parallel, async (i) => {
      const post = eventPost(i, size);
      await api.send('POST', post.path, post.body);
    });
    step('built');
  } finally {
    await api.close();
  }
}

/** How many engine pods select backend `i`: engine pod j belongs to backend j mod backends. */
function enginePodsOf(i: number, size: ScaleSize): number {
  const engines = Math.floor(size.pods / 2);
  return Math.floor(engines / size.backends) + (i < engines % size.backends ? 1 : 0);
}

/**
 * The findings a `--config-only` run over the whole scenario makes, per code, counted from the
 * parameters (independently of the doctor's code).
 */
export function expectedCounts(size: ScaleSize): Record<string, number> {
  const engines = Math.floor(size.pods / 2);
  const backendsWithoutPods = Array.from({ length: size.backends }, (_, i) => enginePodsOf(i, size)).filter((n) => n === 0).length;
  const uninjected = Array.from({ length: engines }, (_, i) => i).filter((i) => i % UNINJECTED_EVERY === 0).length;
  const overQuota = Array.from({ length: size.tenants }, (_, i) => i).filter((i) => i % OVER_QUOTA_EVERY === 0).length;
  const orphans = Array.from({ length: size.events }, (_, i) => i).filter((i) => i % ORPHAN_EVENT_EVERY === 0).length;
  const namespacesWithBackends = Math.min(size.namespaces, size.backends);
  const namespacesWithPolicies = Math.min(size.policies, size.namespaces);
  const multiplePolicies = Array.from(
    { length: namespacesWithPolicies },
    (_, k) => Math.floor(size.policies / size.namespaces) + (k < size.policies % size.namespaces ? 1 : 0),
  ).filter((n) => n > 1).length;
  return {
    CB002: backendsWithoutPods,
    CB006: size.backends - backendsWithoutPods,
    EP001: uninjected,
    EP002: engines - uninjected,
    OP001: orphans,
    CT001: overQuota,
    CT002: size.tenants - overQuota,
    CP001: namespacesWithBackends - namespacesWithPolicies,
    CP002: namespacesWithPolicies - multiplePolicies,
    CP003: multiplePolicies,
  };
}
