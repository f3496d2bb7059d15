// The API client against a loopback server that answers what a broken or hostile API server (or a
// proxy in front of one) may answer: no list where a list belongs, a continue token that never ends,
// a page that names its metadata twice, integers beyond 2^53, names that would bend a URL, lists in
// protobuf and in JSON by turns. And what a projection throws, which is the doctor's bug, not the cluster's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PAGES, type KubeApi } from '../../../src/cluster/transport/kube-api.ts';

import { readPullSecrets } from '../../../src/cluster/gather/pull-secrets.ts';
import { startLoopbackApi, type LoopbackApi } from '../../support/loopback-api.ts';
import { encode, envelope, type Field } from '../../support/protobuf.ts';
import { projectPod } from '../../../src/cluster/kinds/pod.ts';
import { POD_LIST, decodePod } from '../../../src/cluster/kinds/pod-protobuf.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: LoopbackApi;
let handler: Handler = (_, res) => res.end();
const paths: string[] = [];
let api: KubeApi;

function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

beforeAll(async () => {
  server = await startLoopbackApi((req, res) => {
    paths.push(req.url ?? '');
    handler(req, res);
  });
  api = server.api;
});
afterAll(() => server.close());

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
    ['items is named twice', '{"kind":"PodList","metadata":{},"items":[{"n":1}],"items":[{"n":2}]}', 'it holds items twice'],
  ])('%s', async (_, body, why) => {
    handler = (_req, res) => json(res, body ?? 'null');
    expect(await list()).toEqual({ ok: false, error: `the API server's answer to /api/v1/pods is not a list: ${why}` });
  });

  it.each([
    ['the first', '{"kind":"PodList","metadata":{},"items":[{"metadata":tru},{"metadata":{}},{"metadata":{}}]}', 1],
    ['one read the fast way', '{"kind":"PodList","metadata":{},"items":[{"metadata":{}},{"metadata":{"a":tru}},{"metadata":{}}]}', 2],
    ['the last', '{"kind":"PodList","metadata":{},"items":[{"metadata":{}},{"metadata":{}},{"metadata":{"a":tru}}]}', 3],
  ])('an element that is not JSON fails the read, named by its place: %s', async (_, body, n) => {
    handler = (_req, res) => json(res, body);
    const got = await list();
    expect(got.ok).toBe(false);
    expect(got).toMatchObject({
      error: expect.stringMatching(
        new RegExp(`^item ${n} of the API server's answer to /api/v1/pods is not JSON: .*tru.* is not valid JSON$`),
      ),
    });
  });

  it('an element that is not JSON on a later page is named by its place in the whole list', async () => {
    handler = (req, res) => {
      const next = new URL(req.url ?? '', 'http://x').searchParams.get('continue') !== null;
      json(res, next ? '{"metadata":{},"items":[{"n":3},{"n":tru}]}' : '{"metadata":{"continue":"1"},"items":[{"n":1},{"n":2}]}');
    };
    expect(await list()).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^item 4 of the API server's answer to \/api\/v1\/pods is not JSON: /),
    });
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

  it("asks for the next page as soon as a page's metadata names it, before the page's items have arrived", async () => {
    // Page 0 sends its metadata and then holds its items back until page 1 has been asked for: a
    // client that waited for the whole page first would never get it (and the read would time out).
    let asked!: () => void;
    const nextAsked = new Promise<void>((r) => (asked = r));
    handler = (req, res) => {
      const page = new URL(req.url ?? '', 'http://x').searchParams.get('continue') === null ? 0 : 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (page === 1) {
        asked();
        res.end('{"kind":"PodList","metadata":{},"items":[{"page":1}]}');
        return;
      }
      res.write('{"kind":"PodList","metadata":{"continue":"1"},"items":[');
      void nextAsked.then(() => res.end('{"page":0}]}'));
    };
    paths.length = 0;
    const result = await api.list('/api/v1/pods', (raw) => raw, AbortSignal.timeout(20_000));
    expect(result).toEqual({ ok: true, items: [{ page: 0 }, { page: 1 }] });
  });

  it('gives up the next page it asked for when the page that named it turns out broken', async () => {
    // Page 0 breaks off only once page 1 has been asked for; page 1 never ends unless given up.
    const nextClosed = serveFirstPageAfterTheNext('{"kind":"PodList","metadata":{"continue":"1"},"items":[{"page":0}', '');
    expect(await list()).toEqual({
      ok: false,
      error: "the API server's answer to /api/v1/pods is not a list: it is not one complete JSON object",
    });
    await nextClosed;
  });
});

/**
 * Serves a first page whose end (`rest`) comes only once the next page has been asked for; the next
 * page never ends unless it is given up. Resolves when that next request's connection closes.
 */
function serveFirstPageAfterTheNext(start: string, rest: string): Promise<void> {
  let asked!: () => void;
  const nextAsked = new Promise<void>((r) => (asked = r));
  let closed!: () => void;
  const nextClosed = new Promise<void>((r) => (closed = r));
  handler = (req, res) => {
    const next = new URL(req.url ?? '', 'http://x').searchParams.get('continue') !== null;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (next) {
      res.on('close', closed);
      res.write('{"kind":"PodList","metadata":{},"items":[', () => asked());
      return;
    }
    res.write(start);
    void nextAsked.then(() => res.end(rest));
  };
  return nextClosed;
}

describe('a page that names metadata again is read by the last one, as JSON.parse reads it', () => {
  it.each([
    ['another continue token', ',"metadata":{"continue":"b"}', ['a', 'b'], [{ page: 0 }, { page: 0.5 }, { page: 'b' }]],
    ['no continue token', ',"metadata":{"resourceVersion":"9"}', ['a'], [{ page: 0 }, { page: 0.5 }]],
    ['null', ',"metadata":null', ['a'], [{ page: 0 }, { page: 0.5 }]],
  ])('the later one holds %s: the page asked for with the earlier token is given up, never read', async (_, later, tokens, items) => {
    // Page 0 names page `a`, holds its last item back until `a` has been asked for, then names its
    // metadata again. Page `a` never ends unless given up; page `b` is the last.
    let askedA!: () => void;
    const aAsked = new Promise<void>((r) => (askedA = r));
    let closedA!: () => void;
    const aClosed = new Promise<void>((r) => (closedA = r));
    handler = (req, res) => {
      const token = new URL(req.url ?? '', 'http://x').searchParams.get('continue');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (token === 'a') {
        res.on('close', closedA);
        res.write('{"kind":"PodList","metadata":{},"items":[{"page":"a"}', () => askedA());
      } else if (token === 'b') res.end('{"kind":"PodList","metadata":{},"items":[{"page":"b"}]}');
      else {
        res.write('{"kind":"PodList","metadata":{"continue":"a"},"items":[{"page":0}');
        void aAsked.then(() => res.end(`,{"page":0.5}]${later}}`));
      }
    };
    expect(await list()).toEqual({ ok: true, items });
    expect(paths).toEqual(['/api/v1/pods?limit=500', ...tokens.map((t) => `/api/v1/pods?limit=500&continue=${t}`)]);
    await aClosed;
  });

  it('the same continue token named again keeps the page asked for', async () => {
    handler = (req, res) => {
      const next = new URL(req.url ?? '', 'http://x').searchParams.get('continue') !== null;
      json(res, next ? '{"metadata":{},"items":[2]}' : '{"metadata":{"continue":"1"},"items":[1],"metadata":{"continue":"1"}}');
    };
    expect(await list()).toEqual({ ok: true, items: [1, 2] });
    expect(paths).toEqual(['/api/v1/pods?limit=500', '/api/v1/pods?limit=500&continue=1']);
  });
});

describe('what a projection throws is a bug, never a failed read', () => {
  it.each([
    ['the first item', 0],
    ['an item read the fast way', 1],
    ['the last item, read at the end of the page', 2],
  ])('a TypeError thrown for %s rejects the list with it, and the next page asked for is given up', async (_, which) => {
    const nextClosed = serveFirstPageAfterTheNext(
      '{"kind":"PodList","metadata":{"continue":"1"},"items":[',
      '{"metadata":{"name":"p0"}},{"metadata":{"name":"p1"}},{"metadata":{"name":"p2"}}]}',
    );
    const bug = new TypeError("Cannot read properties of undefined (reading 'name')");
    const project = (raw: unknown) => {
      if ((raw as { metadata: { name: string } }).metadata.name === `p${which}`) throw bug;
      return raw;
    };
    await expect(api.list('/api/v1/pods', project, AbortSignal.timeout(20_000))).rejects.toBe(bug);
    await nextClosed;
  });

  it('a SyntaxError a projection throws is its own, not an item that is not JSON', async () => {
    handler = (_req, res) => json(res, { kind: 'PodList', metadata: {}, items: [{ metadata: {} }] });
    const bug = new SyntaxError('Unexpected token in a projection');
    await expect(
      api.list(
        '/api/v1/pods',
        () => {
          throw bug;
        },
        AbortSignal.timeout(20_000),
      ),
    ).rejects.toBe(bug);
  });

  it('bytes that are not JSON stay a failed read under a projection that would throw on anything', async () => {
    handler = (_req, res) => json(res, '{"kind":"PodList","metadata":{},"items":[{"metadata":tru}]}');
    const got = await api.list(
      '/api/v1/pods',
      () => {
        throw new TypeError('never reached');
      },
      AbortSignal.timeout(20_000),
    );
    expect(got).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^item 1 of the API server's answer to \/api\/v1\/pods is not JSON: /),
    });
  });
});

describe('managedFields left out', () => {
  const pod = (managedFields: string) => `{"metadata":{"name":"p","managedFields":${managedFields}},"spec":{},"status":{}}`;
  it.each([
    ['a bare word', pod('[{"manager":tru}]')],
    ['a comma too many', pod('[{"manager":"a"},]')],
    ['a brace too few', pod('[{"fieldsV1":{"f:a":{}}]')],
    ['a control character', pod('[{"manager":"a\u0001"}]')],
    ['a comma that opens the object', '{"metadata":{,"managedFields":[]},"spec":{},"status":{}}'],
  ])('never make an item that is not JSON read as one: %s', async (_, element) => {
    expect(() => JSON.parse(element)).toThrow(SyntaxError);
    const body = `{"kind":"PodList","metadata":{},"items":[{"metadata":{"name":"a"},"spec":{}},${element},{"metadata":{"name":"b"},"spec":{}}]}`;
    handler = (_req, res) => json(res, body);
    const lean = await api.list('/api/v1/pods', (raw) => raw, AbortSignal.timeout(20_000), {}, { metadataFollowedBy: 'spec' });
    const whole = await list();
    expect(lean).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^item 2 of the API server's answer to \/api\/v1\/pods is not JSON: /),
    });
    expect(lean).toEqual(whole);
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

describe('lists in protobuf', () => {
  const protobuf = { list: POD_LIST, decode: decodePod };
  const accepts: string[] = [];
  const listPods = (protobufToo = true) => {
    paths.length = 0;
    accepts.length = 0;
    return api.list('/api/v1/pods', (raw) => projectPod(raw).pod.name, AbortSignal.timeout(60_000), {}, protobufToo ? { protobuf } : {});
  };
  const pb = (res: ServerResponse, body: Uint8Array, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/vnd.kubernetes.protobuf' });
    res.end(body);
  };
  const page = (names: readonly string[], token: string) =>
    envelope('PodList', encode([[1, [[3, token]]], ...names.map((name): Field => [2, [[1, [[1, name]]]]])]));

  it('are asked for in protobuf, JSON second, and read across pages in whichever encoding each comes', async () => {
    handler = (req, res) => {
      accepts.push(req.headers.accept ?? '');
      const token = new URL(req.url ?? '', 'http://x').searchParams.get('continue');
      if (token === null) pb(res, page(['a', 'b'], '1'));
      else if (token === '1') json(res, { kind: 'PodList', metadata: { continue: '2' }, items: [{ metadata: { name: 'c' } }] });
      else pb(res, page(['d'], ''));
    };
    const before = api.stats.protobufPages;
    expect(await listPods()).toEqual({ ok: true, items: ['a', 'b', 'c', 'd'] });
    expect(accepts).toEqual(Array(3).fill('application/vnd.kubernetes.protobuf, application/json'));
    expect(api.stats.protobufPages - before).toBe(2);
  });

  it('are not asked for where the read has no protobuf reading', async () => {
    handler = (req, res) => {
      accepts.push(req.headers.accept ?? '');
      json(res, { kind: 'PodList', metadata: {}, items: [{ metadata: { name: 'a' } }] });
    };
    expect(await listPods(false)).toEqual({ ok: true, items: ['a'] });
    expect(accepts).toEqual(['application/json']);
  });

  it("give the API server's message of a refusal written in protobuf", async () => {
    handler = (_req, res) =>
      pb(
        res,
        envelope(
          'Status',
          encode([
            [2, 'Failure'],
            [3, 'pods is forbidden: User "x" cannot list'],
            [6, 403],
          ]),
        ),
        403,
      );
    expect(await listPods()).toEqual({ ok: false, status: 403, error: 'pods is forbidden: User "x" cannot list' });
  });

  it.each([
    [
      'an answer of another Kind',
      envelope('ServiceList', encode([])),
      "the API server's answer to /api/v1/pods is not a list: it holds a ServiceList, not a PodList",
    ],
    ['an answer cut short', page(['a', 'b'], '').subarray(0, 30), "the API server's answer to /api/v1/pods is not a list: it is cut short"],
    [
      'an item that is not a Pod',
      envelope(
        'PodList',
        encode([
          [2, [[1, [[1, 'a']]]]],
          [2, Uint8Array.from([0x0a, 0x05])],
        ]),
      ),
      "item 2 of the API server's answer to /api/v1/pods is not a Pod in protobuf: a length-delimited value runs past the end of its message",
    ],
  ])('fail the read when broken: %s', async (_, body, error) => {
    handler = (_req, res) => pb(res, body);
    expect(await listPods()).toEqual({ ok: false, error });
  });
});
