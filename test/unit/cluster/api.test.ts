// The API client against a loopback server that answers what a broken or hostile API server (or a
// proxy in front of one) may answer: no list where a list belongs, a continue token that never ends,
// integers beyond 2^53, names that would bend a URL.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApi, MAX_PAGES } from '../../../src/cluster/api.ts';
import { readPullSecrets } from '../../../src/cluster/pull-secrets.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let handler: Handler = (_, res) => res.end();
const paths: string[] = [];
let api: KubeApi;

function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser(
    { name: 'c', server: `http://127.0.0.1:${(server.address() as { port: number }).port}`, skipTLSVerify: true },
    { name: 'u', token: 't' },
  );
  api = new KubeApi(kc);
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const list = (path = '/api/v1/pods') => {
  paths.length = 0;
  return api.list(path, (raw) => raw, AbortSignal.timeout(60_000));
};

describe('a list answer that is not a list is a failed read, never an empty list', () => {
  it.each([
    ['items is an object', { kind: 'PodList', items: { a: 1 } }, 'it has no items array'],
    ['items is a string', { kind: 'PodList', items: 'none' }, 'it has no items array'],
    ['items is missing', { kind: 'PodList', metadata: {} }, 'it has no items array'],
    ['the body is null', null, 'it is not one complete JSON object'],
    ['the body is an array', [{ metadata: { name: 'p' } }], 'it is not one complete JSON object'],
    ['the body is cut short', '{"kind":"PodList","items":[{"metadata":{}}', 'it is not one complete JSON object'],
  ])('%s', async (_, body, why) => {
    handler = (_req, res) => json(res, body ?? 'null');
    expect(await list()).toEqual({ ok: false, error: `the API server's answer to /api/v1/pods is not a list: ${why}` });
  });

  it('a well-formed empty list is an empty list', async () => {
    handler = (_req, res) => json(res, { kind: 'PodList', metadata: {}, items: [] });
    expect(await list()).toEqual({ ok: true, items: [] });
  });
});

describe('pagination', () => {
  it(`stops a continue token that never ends after ${MAX_PAGES} pages, and says so`, async () => {
    handler = (_req, res) => json(res, { kind: 'PodList', metadata: { continue: 'again' }, items: [{ n: 1 }] });
    expect(await list()).toEqual({
      ok: false,
      error: `stopped after ${MAX_PAGES} pages (${MAX_PAGES} objects): the API server kept answering with a continue token`,
    });
    expect(paths).toHaveLength(MAX_PAGES);
  });

  it('follows continue tokens to the end', async () => {
    handler = (req, res) => {
      const token = new URL(req.url ?? '', 'http://x').searchParams.get('continue');
      const page = Number(token ?? '0');
      json(res, { kind: 'PodList', metadata: page < 2 ? { continue: String(page + 1) } : {}, items: [{ page }] });
    };
    expect(await list()).toEqual({ ok: true, items: [{ page: 0 }, { page: 1 }, { page: 2 }] });
    expect(paths).toEqual(['/api/v1/pods?limit=500', '/api/v1/pods?limit=500&continue=1', '/api/v1/pods?limit=500&continue=2']);
  });
});

describe('integers beyond 2^53', () => {
  it('arrive exact', async () => {
    handler = (_req, res) => json(res, '{"kind":"List","metadata":{},"items":[{"status":{"indexEntries":9223372036854775807}}]}');
    expect(await list()).toEqual({ ok: true, items: [{ status: { indexEntries: 9223372036854775807n } }] });
  });
});

describe('names from the cluster never bend a URL', () => {
  it.each(['..', '.', 'a/b', '%2e%2e', 'UPPER', ''])('a pull secret named %j is not read (no such Secret can exist)', async (name) => {
    paths.length = 0;
    const lookups = await readPullSecrets(api, [{ namespace: 'ns1', name, referrers: ['pod/ns1/p'] }], AbortSignal.timeout(10_000));
    expect([...lookups.values()]).toEqual([{ kind: 'not-found' }]);
    expect(paths).toEqual([]);
  });
  it('a pull secret with an ordinary name is read by that name', async () => {
    handler = (_req, res) => json(res, { kind: 'Secret', type: 'Opaque' });
    paths.length = 0;
    await readPullSecrets(api, [{ namespace: 'ns1', name: 'regcred.v2', referrers: ['pod/ns1/p'] }], AbortSignal.timeout(10_000));
    expect(paths).toEqual(['/api/v1/namespaces/ns1/secrets/regcred.v2']);
  });
});
