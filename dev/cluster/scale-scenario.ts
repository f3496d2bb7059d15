// The scale scenario of docs/architecture.md#bars (2,000 CacheBackends in 50 namespaces, 20,000 pods of which half are
// engine pods, 2,000 CacheTenants, 60 CachePolicies, 20,000 Events), a fraction of it, a multiple, or the
// Kubernetes envelope, in a shape (how many pods are engine pods, how they show injection), built in a
// test control plane with many requests in flight. What it builds is regular, so the findings a run
// must make can be counted from the parameters alone (`expectedCounts`).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

/** The sizes of a scenario. */
export interface ScaleSize {
  readonly namespaces: number;
  readonly backends: number;
  /** All pods; the shape's share of them are engine pods, spread evenly over the backends. */
  readonly pods: number;
  /**
   * Node objects the pods are spread over, `scale-node-<i>`. With none, every pod names a node
   * `scale-node` that does not exist, as the bench's first sizes always did.
   */
  readonly nodes: number;
  readonly tenants: number;
  readonly policies: number;
  /** Events about ordinary pods; a shape that injects by Event adds one per such engine pod. */
  readonly events: number;
}

/** The scenario of docs/architecture.md#bars. */
export const FULL: ScaleSize = { namespaces: 50, backends: 2_000, pods: 20_000, nodes: 0, tenants: 2_000, policies: 60, events: 20_000 };

/**
 * Five times the scenario's pods and Events (100,000 each), 2.5 times its CacheBackends and
 * CacheTenants, in the same 50 namespaces: a cluster grows in pods faster than in backends.
 */
export const FIVE_X: ScaleSize = {
  namespaces: 50,
  backends: 5_000,
  pods: 100_000,
  nodes: 0,
  tenants: 5_000,
  policies: 60,
  events: 100_000,
};

/**
 * The Kubernetes scalability envelope: 150,000 pods over 5,000 nodes (30 a node), as many Events,
 * 7,500 CacheBackends and CacheTenants in 500 namespaces, and a CachePolicy in each namespace and a
 * second one in a tenth of them.
 */
export const ENVELOPE: ScaleSize = {
  namespaces: 500,
  backends: 7_500,
  pods: 150_000,
  nodes: 5_000,
  tenants: 7_500,
  policies: 550,
  events: 150_000,
};

/** `from` (the scenario by default) at `fraction` of its size (at least one of each; no nodes stays none). */
export function scaled(fraction: number, from: ScaleSize = FULL): ScaleSize {
  const of = (n: number) => Math.max(1, Math.round(n * fraction));
  return {
    namespaces: of(from.namespaces),
    backends: of(from.backends),
    pods: of(from.pods),
    nodes: from.nodes === 0 ? 0 : of(from.nodes),
    tenants: of(from.tenants),
    policies: of(from.policies),
    events: of(from.events),
  };
}

/**
 * How the engine pods of a shape show that they were injected, as weights: of every
 * `none + event + annotation` engine pods (in that order), `none` carry no marker (EP001), `event` are
 * named by an `InjectedByCacheBackend` Event for their uid (EP002), `annotation` carry the validated
 * annotation pair (EP002).
 */
export interface InjectionMix {
  readonly annotation: number;
  readonly event: number;
  readonly none: number;
}

/** What the pods of a scenario are: the share of engine pods, and how those were injected. */
export interface ScaleShape {
  /** Percent of the pods (0 to 100) that are engine pods, selected by a CacheBackend. */
  readonly enginePercent: number;
  readonly injection: InjectionMix;
}

/** The bench's shape since issue 28: half the pods engine pods, nine in ten injected by annotation, one not at all. */
export const BENCH_SHAPE: ScaleShape = { enginePercent: 50, injection: { annotation: 9, event: 0, none: 1 } };

/**
 * An inference cluster's shape (issue 42): half the pods engine pods, three in five injected by
 * annotation, one in five known injected only by its Event, one in five not injected.
 */
export const INFERENCE_SHAPE: ScaleShape = { enginePercent: 50, injection: { annotation: 3, event: 1, none: 1 } };

/** How engine pod `j` shows injection. */
export function injectionOf(j: number, mix: InjectionMix): keyof InjectionMix {
  const p = j % (mix.none + mix.event + mix.annotation);
  return p < mix.none ? 'none' : p < mix.none + mix.event ? 'event' : 'annotation';
}

/** How many of the pods are engine pods: the first ones, by index. */
export function engineCount(size: ScaleSize, shape: ScaleShape): number {
  return Math.floor((size.pods * shape.enginePercent) / 100);
}

/** A shape's mix as `annotation:A,event:E,none:N`, the bench's `--injection` spelling. */
export function formatMix(mix: InjectionMix): string {
  return `annotation:${mix.annotation},event:${mix.event},none:${mix.none}`;
}

/** Reads `--injection`: `annotation:A,event:E,none:N` (any order; a kind left out weighs 0). */
export function parseMix(text: string): InjectionMix {
  const weights: Record<keyof InjectionMix, number> = { annotation: 0, event: 0, none: 0 };
  for (const part of text.split(',')) {
    const m = /^(annotation|event|none):(\d{1,4})$/.exec(part.trim());
    if (m === null) throw new Error(`--injection ${text}: expected annotation:A,event:E,none:N (whole weights)`);
    weights[m[1] as keyof InjectionMix] = Number(m[2]);
  }
  if (weights.annotation + weights.event + weights.none === 0) throw new Error(`--injection ${text}: the weights add up to 0`);
  return weights;
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
function backendStatus(i: number, size: ScaleSize, shape: ScaleShape): Record<string, unknown> {
  const live = i % LIVE_COUNT_EVERY === 0;
  return {
    conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: recent() }],
    ...(live ? {} : { matchedEnginePods: enginePodsOf(i, size, shape) }),
    firstKVEventObservedAt: recent(),
    indexParticipation: {
      prefixCount: 10,
      lastEventAt: new Date(Date.now() + KEPT_FOR_MS).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    },
  };
}

/** The node pod `i` is bound to. */
const nodeOf = (i: number, size: ScaleSize) => (size.nodes === 0 ? 'scale-node' : `scale-node-${i % size.nodes}`);

/**
 * Pod `i`: an engine pod of backend `i mod backends` (with the annotation pair of that backend, whose
 * uid `uidOf` gives, when the shape's mix says so), or an ordinary one.
 */
function podPost(i: number, size: ScaleSize, shape: ScaleShape, uidOf: (backend: number) => string): ScenarioPost {
  const engine = i < engineCount(size, shape);
  const backend = i % size.backends;
  const namespace = ns(backend, size);
  const injected = engine && injectionOf(i, shape.injection) === 'annotation';
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
        nodeName: nodeOf(i, size),
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
function eventPost(i: number, size: ScaleSize, shape: ScaleShape): ScenarioPost {
  const engines = engineCount(size, shape);
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

/** The Event the controller records once it has injected engine pod `i`, whose uid is `podUid`. */
function injectionEventPost(i: number, size: ScaleSize, podUid: string): ScenarioPost {
  const namespace = ns(i % size.backends, size);
  const at = recent();
  return {
    path: `/api/v1/namespaces/${namespace}/events`,
    body: {
      metadata: { name: `injected-${i}` },
      involvedObject: { kind: 'Pod', apiVersion: 'v1', namespace, name: `engine-${i}`, uid: podUid },
      reason: 'InjectedByCacheBackend',
      message: `injected by CacheBackend ${namespace}/be-${i % size.backends}`,
      type: 'Normal',
      source: { component: 'inferencecache-controller' },
      firstTimestamp: at,
      lastTimestamp: at,
    },
  };
}

/** Node `i`, labelled and sized as a cloud node of 16 CPUs, with a GPU on every fourth. */
function nodePost(i: number): ScenarioPost {
  const zone = `zone-${String.fromCharCode(97 + (i % 3))}`;
  return {
    path: '/api/v1/nodes',
    body: {
      metadata: {
        name: `scale-node-${i}`,
        labels: {
          'kubernetes.io/hostname': `scale-node-${i}`,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'node.kubernetes.io/instance-type': i % 4 === 0 ? 'g.4xlarge' : 'm.4xlarge',
          'topology.kubernetes.io/zone': zone,
          'topology.kubernetes.io/region': 'region-1',
        },
      },
      spec: { podCIDR: `10.${(i >> 8) & 255}.${i & 255}.0/24`, providerID: `scale://region-1/${zone}/scale-node-${i}` },
    },
  };
}

/** The status node `i` is given: Ready, its capacity and allocatable, its addresses and versions. */
function nodeStatus(i: number): Record<string, unknown> {
  const gpu = i % 4 === 0 ? { 'nvidia.com/gpu': '1' } : {};
  const at = recent();
  const condition = (type: string, status: string, reason: string) => ({
    type,
    status,
    reason,
    message: `kubelet reports ${reason}`,
    lastHeartbeatTime: at,
    lastTransitionTime: at,
  });
  return {
    capacity: { cpu: '16', memory: '65842720Ki', pods: '110', 'ephemeral-storage': '203056560Ki', ...gpu },
    allocatable: { cpu: '15890m', memory: '63193120Ki', pods: '110', 'ephemeral-storage': '187136762079', ...gpu },
    conditions: [
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
      condition('Ready', 'True', 'KubeletReady'),
    ],
    addresses: [
      { type: 'InternalIP', address: `10.0.${(i >> 8) & 255}.${i & 255}` },
      { type: 'Hostname', address: `scale-node-${i}` },
    ],
    nodeInfo: {
      machineID: `${String(i).padStart(32, '0')}`,
      systemUUID: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      bootID: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`,
      kernelVersion: '6.1.0-28-cloud-amd64',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: 'containerd://1.7.24',
      kubeletVersion: 'v1.36.3',
      kubeProxyVersion: 'v1.36.3',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/** The apiVersion and Kind of the objects POSTed to a collection, by the collection's last segment. */
const KIND_OF: Readonly<Record<string, readonly [apiVersion: string, kind: string]>> = {
  namespaces: ['v1', 'Namespace'],
  nodes: ['v1', 'Node'],
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
export function* scenarioObjects(size: ScaleSize, shape: ScaleShape = BENCH_SHAPE): Generator<Record<string, unknown>> {
  const uidOf = (kind: string, i: number) => `00000000-0000-4000-8000-${kind}${String(i).padStart(10, '0')}`;
  for (let i = 0; i < size.namespaces; i++) for (const post of namespacePosts(i, size)) yield asStored(post, uidOf('0a', i));
  for (let i = 0; i < size.nodes; i++) yield asStored(nodePost(i), uidOf('09', i), nodeStatus(i));
  for (let i = 0; i < size.backends; i++) yield asStored(backendPost(i, size), uidOf('0b', i), backendStatus(i, size, shape));
  for (let i = 0; i < size.pods; i++)
    yield asStored(
      podPost(i, size, shape, (backend) => uidOf('0b', backend)),
      uidOf('0c', i),
    );
  for (let i = 0; i < size.tenants; i++) yield asStored(tenantPost(i, size), uidOf('0d', i), tenantStatus(i));
  for (let i = 0; i < size.policies; i++) yield asStored(policyPost(i, size), uidOf('0e', i));
  for (let i = 0; i < size.events; i++) yield asStored(eventPost(i, size, shape), uidOf('0f', i));
  for (const i of injectedByEvent(size, shape)) yield asStored(injectionEventPost(i, size, uidOf('0c', i)), uidOf('10', i));
}

/** The engine pods the shape marks as injected by an Event only. */
function injectedByEvent(size: ScaleSize, shape: ScaleShape): number[] {
  if (shape.injection.event === 0) return [];
  return Array.from({ length: engineCount(size, shape) }, (_, i) => i).filter((i) => injectionOf(i, shape.injection) === 'event');
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
 * Builds the scenario: namespaces (with their `default` ServiceAccount), Nodes with status, CacheBackends
 * with status written through the status subresource, engine pods (bound, injected as the shape says)
 * and ordinary pods, CacheTenants, CachePolicies, Events, and the injection Events of the engine pods
 * the shape marks so. `log` hears progress.
 */
export async function buildScenario(
  target: Target,
  size: ScaleSize,
  log: (text: string) => void = () => undefined,
  parallel = 32,
  shape: ScaleShape = BENCH_SHAPE,
): Promise<void> {
  const api = client(target, parallel);
  const started = Date.now();
  const step = (text: string) => log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${text}`);
  try {
    step(`${size.namespaces} namespaces`);
    await pool(size.namespaces, parallel, async (i) => {
      for (const post of namespacePosts(i, size)) await api.send('POST', post.path, post.body);
    });
    if (size.nodes > 0) step(`${size.nodes} Nodes with status`);
    await pool(size.nodes, parallel, async (i) => {
      const post = nodePost(i);
      await api.send('POST', post.path, post.body);
      await api.send('PATCH', `${post.path}/${post.body.metadata.name}/status`, { status: nodeStatus(i) }, 'application/merge-patch+json');
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
        { status: backendStatus(i, size, shape) },
        'application/merge-patch+json',
      );
    });
    step(`${size.pods} pods (${engineCount(size, shape)} engine pods, injected ${formatMix(shape.injection)})`);
    const byEvent = new Set(injectedByEvent(size, shape));
    const podUids = new Map<number, string>();
    await pool(size.pods, parallel, async (i) => {
      const post = podPost(i, size, shape, (backend) => uids[backend] ?? '');
      const created = (await api.send('POST', post.path, post.body)) as { metadata: { uid: string } } | undefined;
      if (byEvent.has(i)) podUids.set(i, created?.metadata.uid ?? '');
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
      const post = eventPost(i, size, shape);
      await api.send('POST', post.path, post.body);
    });
    if (byEvent.size > 0) step(`${byEvent.size} InjectedByCacheBackend Events`);
    const injected = [...byEvent];
    await pool(injected.length, parallel, async (k) => {
      const i = injected[k] ?? 0;
      const post = injectionEventPost(i, size, podUids.get(i) ?? '');
      await api.send('POST', post.path, post.body);
    });
    step('built');
  } finally {
    await api.close();
  }
}

/** How many engine pods select backend `i`: engine pod j belongs to backend j mod backends. */
function enginePodsOf(i: number, size: ScaleSize, shape: ScaleShape): number {
  const engines = engineCount(size, shape);
  return Math.floor(engines / size.backends) + (i < engines % size.backends ? 1 : 0);
}

/**
 * The findings a `--config-only` run over the whole scenario makes, per code, counted from the
 * parameters (independently of the doctor's code).
 */
export function expectedCounts(size: ScaleSize, shape: ScaleShape = BENCH_SHAPE): Record<string, number> {
  const engines = engineCount(size, shape);
  const backendsWithoutPods = Array.from({ length: size.backends }, (_, i) => enginePodsOf(i, size, shape)).filter((n) => n === 0).length;
  const uninjected = Array.from({ length: engines }, (_, i) => i).filter((i) => injectionOf(i, shape.injection) === 'none').length;
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
