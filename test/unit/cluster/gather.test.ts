// The gathering against a loopback server standing in for the API server's list answers: the pods
// kept are those a check can judge, whichever of pods and CacheBackends arrives first.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeApi } from '../../../src/cluster/api.ts';
import { gatherClusterState } from '../../../src/cluster/gather.ts';
import { startLoopbackApi, type LoopbackApi } from '../../support/loopback-api.ts';

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

const gather = async () => {
  const state = await gatherClusterState(api, { reads: new Set(['pods', 'cacheBackends']), namespace: '' }, AbortSignal.timeout(30_000));
  return state.pods?.ok === true ? state.pods.items.map((p) => p.name) : state.pods;
};

describe('the pods a run keeps', () => {
  const judgeable = ['server', 'engine-1', 'cache', 'engine-2'];

  it('are the install’s own and the selected ones, when the backends arrive first', async () => {
    let backendsSent!: () => void;
    const sent = new Promise<void>((r) => (backendsSent = r));
    serveBackends(() => {
      backendsSent();
      return Promise.resolve([200, { kind: 'CacheBackendList', metadata: {}, items: [BACKEND] }]);
    });
    servePods(async (page) => (page === 0 ? sent : undefined));
    expect(await gather()).toEqual(judgeable);
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
    expect(await gather()).toEqual(judgeable);
  });

  it('are all the pods when the backends cannot be read', async () => {
    servePods();
    serveBackends(() => Promise.resolve([403, { kind: 'Status', message: 'forbidden' }]));
    expect(await gather()).toEqual(PODS.map((p) => p.metadata.name));
  });
});
