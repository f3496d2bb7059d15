// The gathering against a loopback server standing in for the API server's list answers: each view
// of the pod list holds what its name says, whichever of pods and CacheBackends arrives first, and a
// check that declares every pod gets every pod.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeApi } from '../../../src/cluster/transport/kube-api.ts';
import { gatherClusterState } from '../../../src/cluster/gather/gather.ts';
import type { ClusterState, ReadName } from '../../../src/cluster/state/state.ts';
import { defineCheck } from '../../../src/checks/check.ts';
import { API001 } from '../../../src/checks/api-read.ts';
import { DECLARATIONS, planRun } from '../../../src/checks/registry.ts';
import { runCheck } from '../../../src/checks/run.ts';
import { startLoopbackApi, type LoopbackApi } from '../../support/loopback-api.ts';
import type { Read } from '../../../src/cluster/kinds/kind.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

let server: LoopbackApi;
const handlers = new Map<string, Handler>();
let api: KubeApi;

beforeAll(async () => {
  server = await startLoopbackApi((req, res) => {
    const path = new URL(req.url ?? '', 'http://x').pathname;
    void (handlers.get(path) ?? ((_, r: ServerResponse) => r.writeHead(404).end()))(req, res);
  });
  api = server.api;
});
afterAll(() => server.close());

const pod = (name: string, labels: Record<string, string>) => ({ metadata: { namespace: 'ns', name, uid: name, labels } });
const PODS = [
  pod('server', { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'server' }),
  pod('web-1', { app: 'web' }),
  pod('engine-1', { app: 'engine' }),
  pod('cache', { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'redis' }),
  pod('web-2', { app: 'web' }),
  pod('engine-2', { app: 'engine', tier: 'gpu' }),
];
const BACKEND = { metadata: { namespace: 'ns', name: 'be', uid: 'b' }, spec: { engineSelector: { matchLabels: { app: 'engine' } } } };

/** Serves the pods in pages of two, with a continue token, each page once `before(page)` has resolved. */
function servePods(before: (page: number) => Promise<void> = () => Promise.resolve()): void {
  handlers.set('/api/v1/pods', async (req, res) => {
    const page = Number(new URL(req.url ?? '', 'http://x').searchParams.get('continue') ?? '0');
    await before(page);
    const next = (page + 1) * 2 < PODS.length ? { continue: String(page + 1) } : {};
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ kind: 'PodList', metadata: next, items: PODS.slice(page * 2, page * 2 + 2) }));
  });
}

function serveBackends(answer: () => Promise<[number, unknown]>): void {
  handlers.set('/apis/inferencecache.io/v1alpha1/cachebackends', async (_req, res) => {
    const [status, body] = await answer();
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
}

const gather = (reads: readonly ReadName[]) =>
  gatherClusterState(api, { reads: new Set(reads), namespace: '' }, AbortSignal.timeout(30_000));

/** The names of a view's pods, or the failed read. */
function names(read: Read<{ name: string } | { pod: { name: string } }> | undefined) {
  return read?.ok === true ? read.items.map((item) => ('pod' in item ? item.pod.name : item.name)) : read;
}

const installPods = async () => names((await gather(['installPods'])).installPods);

describe('the install’s pods', () => {
  const install = ['server', 'engine-1', 'cache', 'engine-2'];

  it('are its labelled pods and the selected ones, when the backends arrive first', async () => {
    let backendsSent!: () => void;
    const sent = new Promise<void>((r) => (backendsSent = r));
    serveBackends(() => {
      backendsSent();
      return Promise.resolve([200, { kind: 'CacheBackendList', metadata: {}, items: [BACKEND] }]);
    });
    servePods(async (page) => (page === 0 ? sent : undefined));
    expect(await installPods()).toEqual(install);
  });

  it('are the same when every pod has arrived before the backends', async () => {
    let podsDone!: () => void;
    const done = new Promise<void>((r) => (podsDone = r));
    servePods((page) => {
      if (page === 2) setImmediate(podsDone);
      return Promise.resolve();
    });
    serveBackends(async () => {
      await done;
      return [200, { kind: 'CacheBackendList', metadata: {}, items: [BACKEND] }];
    });
    expect(await installPods()).toEqual(install);
  });

  it('are the labelled ones when the backends cannot be read, and which are selected is unknown', async () => {
    servePods();
    serveBackends(() => Promise.resolve([403, { kind: 'Status', message: 'forbidden' }]));
    const state = await gather(['installPods', 'selectedPods']);
    expect(names(state.installPods)).toEqual(['server', 'cache']);
    expect(state.selectedPods).toEqual({
      ok: false,
      error: 'which pods the CacheBackends select is unknown: listing CacheBackend objects failed: forbidden',
    });
  });
});

describe('a check that declares every pod', () => {
  const codes = { API001, XX001: { status: 'INFO', meaning: 'm', hint: 'h', fix: 'f' } } as const;
  const everyPod = defineCheck({
    name: 'EveryPod',
    codes,
    reads: { pods: 'items' },
    probes: {},
    judge: ({ state }, emit) => state.pods.map((p) => emit('XX001', `pod/${p.namespace}/${p.name}`, 'seen')),
  });

  it('is planned with the real checks and sees the pods no CacheBackend selects', async () => {
    servePods();
    serveBackends(() => Promise.resolve([200, { kind: 'CacheBackendList', metadata: {}, items: [BACKEND] }]));
    const plan = planRun({ configOnly: true }, [...DECLARATIONS, everyPod]);
    const state: ClusterState = await gather([...plan.reads]);
    const seen = runCheck(everyPod, { state, probes: {}, now: new Date(), namespace: '' }).map((f) => f.resource);
    expect(seen).toEqual(PODS.map((p) => `pod/ns/${p.metadata.name}`));
    expect(seen).toContain('pod/ns/web-1');
    expect(names(state.selectedPods)).toEqual(['engine-1', 'engine-2']);
  });
});
