import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES, isStrictJson, probeRoute, probeSnapshot } from '../../../src/probes/http-route.ts';
import type { HttpResult } from '../../../src/probes/results.ts';
import { getClosedPort, startBlackhole, type Blackhole } from '../../support/servers/blackhole.ts';
import { startHttpServer, type TestHttpServer } from '../../support/servers/http-server.ts';
import { expectEndedOnBudget, expectEndedWellBefore } from '../../support/timing.ts';

const DEADLINE = 2_000;
const TOKEN = 'sekret-token-value';
const BOM = Uint8Array.from([0xef, 0xbb, 0xbf]);

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function transportError(result: HttpResult): string {
  expect(result.kind).toBe('transport-error');
  return result.kind === 'transport-error' ? result.error : '';
}

describe('isStrictJson (RFC 8259, one value)', () => {
  it.each(['null', '"x"', '1e999', '-0', ' \t\r\n{"a":[1,2,{"b":null}]}\n ', '[]', 'true', '"\\ud800"', '"ä€😀"'])('accepts %j', (text) => {
    expect(isStrictJson(bytes(text))).toBe(true);
  });

  it.each(['', ' ', '{} {}', '[1,]', '{"a":1,}', "'x'", 'NaN', 'undefined', '01', '\u00a0{}', '{}\u000b', '"\t"'])('rejects %j', (text) => {
    expect(isStrictJson(bytes(text))).toBe(false);
  });

  it('rejects a leading UTF-8 byte-order mark', () => {
    expect(isStrictJson(new Uint8Array([...BOM, ...bytes('{}')]))).toBe(false);
  });

  it('rejects invalid UTF-8 even inside a string', () => {
    expect(isStrictJson(Uint8Array.from([0x22, 0xff, 0x22]))).toBe(false);
  });

  it('allows nesting up to 10 000 levels and no deeper', () => {
    const nest = (n: number) => bytes('['.repeat(n) + ']'.repeat(n));
    expect(isStrictJson(nest(10_000))).toBe(true);
    expect(isStrictJson(nest(10_001))).toBe(false);
    expect(isStrictJson(bytes(`["${'['.repeat(20_000)}"]`))).toBe(true);
  });
});

describe('probeSnapshot (GET /snapshot)', () => {
  let server: TestHttpServer;
  beforeAll(async () => {
    server = await startHttpServer();
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => {
    server.requests.length = 0;
  });

  const get = (opts: { token?: string; deadlineMs?: number; maxBodyBytes?: number; path?: string } = {}) =>
    probeSnapshot(server.url(opts.path ?? '/snapshot'), {
      deadlineMs: opts.deadlineMs ?? DEADLINE,
      ...(opts.token === undefined ? {} : { token: opts.token }),
      ...(opts.maxBodyBytes === undefined ? {} : { maxBodyBytes: opts.maxBodyBytes }),
    });

  it('200 with a JSON body → json', async () => {
    server.setRoute('/snapshot', { kind: 'answer', status: 200, body: '{"tenants":[]}' });
    expect(await get()).toEqual({ kind: 'response', status: 200, body: { kind: 'json' } });
  });

  it.each([
    ['non-JSON', bytes('<html>hello</html>')],
    ['empty', new Uint8Array()],
    ['BOM before JSON', new Uint8Array([...BOM, ...bytes('{"a":1}')])],
    ['two values', bytes('{} {}')],
  ])('200 with a %s body → not-json', async (_name, body) => {
    server.setRoute('/snapshot', { kind: 'answer', status: 200, body });
    expect(await get()).toEqual({ kind: 'response', status: 200, body: { kind: 'not-json' } });
  });

  it('200 with a gzip-encoded JSON body → json, and asks for gzip', async () => {
    server.setRoute('/snapshot', { kind: 'answer', status: 200, body: '{"ok":true}', gzip: true });
    expect(await get()).toEqual({ kind: 'response', status: 200, body: { kind: 'json' } });
    expect(server.requests[0]?.headers['accept-encoding']).toBe('gzip');
  });

  it('200 with a corrupt gzip body → read-error', async () => {
    server.setRoute('/snapshot', { kind: 'answer', status: 200, body: 'not gzip at all', headers: { 'content-encoding': 'gzip' } });
    const result = await get();
    expect(result.kind === 'response' && result.body?.kind).toBe('read-error');
  });

  it('200 with a body over 8 MiB → too-large (deviation: upstream said not-json)', async () => {
    server.setRoute('/snapshot', { kind: 'huge', bytes: DEFAULT_MAX_BODY_BYTES + 1024 * 1024 });
    expect(await get({ deadlineMs: 10_000 })).toEqual({
      kind: 'response',
      status: 200,
      body: { kind: 'too-large', limitBytes: DEFAULT_MAX_BODY_BYTES },
    });
  });

  it('caps the inflated size of a gzip body, not the transferred size', async () => {
    server.setRoute('/snapshot', { kind: 'huge', bytes: DEFAULT_MAX_BODY_BYTES + 1, gzip: true });
    expect(await get({ deadlineMs: 10_000 })).toEqual({
      kind: 'response',
      status: 200,
      body: { kind: 'too-large', limitBytes: DEFAULT_MAX_BODY_BYTES },
    });
  });

  it('a body of exactly the cap is read and judged; one byte more is too large', async () => {
    server.setRoute('/snapshot', { kind: 'answer', status: 200, body: '"0123456789"' }); // 12 bytes
    expect(await get({ maxBodyBytes: 12 })).toEqual({ kind: 'response', status: 200, body: { kind: 'json' } });
    expect(await get({ maxBodyBytes: 11 })).toEqual({ kind: 'response', status: 200, body: { kind: 'too-large', limitBytes: 11 } });
  });

  it('200 reset mid-body → read-error', async () => {
    server.setRoute('/snapshot', { kind: 'reset-mid-body' });
    const result = await get();
    expect(result.kind).toBe('response');
    if (result.kind === 'response') {
      expect(result.status).toBe(200);
      expect(result.body?.kind).toBe('read-error');
      if (result.body?.kind === 'read-error') expect(result.body.error).not.toMatch(/\n/);
    }
  });

  it('200 whose body stalls past the deadline → read-error naming the deadline', async () => {
    server.setRoute('/snapshot', { kind: 'stall-mid-body' });
    const started = performance.now();
    expect(await get({ deadlineMs: 300 })).toEqual({
      kind: 'response',
      status: 200,
      body: { kind: 'read-error', error: 'no answer within 300ms' },
    });
    expectEndedOnBudget(performance.now() - started, 300);
  });

  it.each([401, 403, 404, 405, 500, 503, 201, 204])('HTTP %i → response with that status and no body', async (status) => {
    server.setRoute('/snapshot', status === 204 ? { kind: 'answer', status } : { kind: 'answer', status, body: '{"error":"x"}' });
    expect(await get({ token: TOKEN })).toEqual({ kind: 'response', status });
  });

  it('a 3xx without Location is returned as that status (unresolved redirect)', async () => {
    server.setRoute('/snapshot', { kind: 'redirect', status: 302 });
    expect(await get()).toEqual({ kind: 'response', status: 302 });
  });

  it('follows a redirect within the origin, keeps the token, and records where the answer came from', async () => {
    server.setRoute('/snapshot', { kind: 'redirect', status: 307, location: '/real' });
    server.setRoute('/real', { kind: 'answer', status: 200, body: '[]' });
    expect(await get({ token: TOKEN })).toEqual({
      kind: 'response',
      status: 200,
      body: { kind: 'json' },
      redirect: { count: 1, to: server.url('/real'), tokenWithheld: false },
    });
    expect(server.requests.map((r) => r.path)).toEqual(['/snapshot', '/real']);
    expect(server.requests[1]?.headers['authorization']).toBe(`Bearer ${TOKEN}`);
  });

  it.each([
    ['another host name for the same address', (port: number) => `http://localhost:${port}/elsewhere`],
    ['another port of the same host (Go would send the token there)', (port: number) => `http://127.0.0.1:${port}/elsewhere`],
  ])('withholds the token from %s', async (_, location) => {
    const other = await startHttpServer({ '/elsewhere': { kind: 'answer', status: 200, body: '{}' } });
    try {
      server.setRoute('/snapshot', { kind: 'redirect', status: 302, location: location(other.port) });
      expect(await get({ token: TOKEN })).toEqual({
        kind: 'response',
        status: 200,
        body: { kind: 'json' },
        redirect: { count: 1, to: location(other.port), tokenWithheld: true },
      });
      expect(other.requests).toHaveLength(1);
      expect(other.requests[0]?.headers['authorization']).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('a redirect loop → transport-error after 10 redirect answers', async () => {
    server.setRoute('/snapshot', { kind: 'redirect-loop' });
    expect(await get()).toEqual({ kind: 'transport-error', error: 'stopped after 10 redirects' });
    expect(server.requests).toHaveLength(10);
  });

  it('nine redirects are followed', async () => {
    for (let i = 0; i < 9; i++)
      server.setRoute(i === 0 ? '/snapshot' : `/r${i}`, { kind: 'redirect', status: 301, location: `/r${i + 1}` });
    server.setRoute('/r9', { kind: 'answer', status: 200, body: '{}' });
    expect(await get()).toEqual({
      kind: 'response',
      status: 200,
      body: { kind: 'json' },
      redirect: { count: 9, to: server.url('/r9'), tokenWithheld: false },
    });
    expect(server.requests).toHaveLength(10);
  });

  it('sends the bearer token only when it is non-empty', async () => {
    server.setRoute('/snapshot', { kind: 'answer', status: 200, body: '{}' });
    await get({ token: TOKEN });
    await get({ token: '' });
    await get();
    expect(server.requests.map((r) => r.headers['authorization'])).toEqual([`Bearer ${TOKEN}`, undefined, undefined]);
  });

  it('never puts the token into an error', async () => {
    const badToken = `${TOKEN}\nX-Injected: 1`;
    server.setRoute('/snapshot', { kind: 'answer', status: 200, body: '{}' });
    const result = await get({ token: badToken });
    expect(result.kind).toBe('transport-error');
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('connection refused → transport-error', async () => {
    const port = await getClosedPort();
    const error = transportError(await probeSnapshot(`http://127.0.0.1:${port}/snapshot`, { deadlineMs: DEADLINE, token: TOKEN }));
    expect(error).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('unknown host → transport-error', async () => {
    const error = transportError(await probeSnapshot('http://nonexistent.invalid:8081/snapshot', { deadlineMs: DEADLINE }));
    expect(error).toMatch(/ENOTFOUND|EAI_AGAIN|no answer/);
  });

  it('a URL that does not parse → build-error', async () => {
    const result = await probeSnapshot('http://[http://x:1]:8081/snapshot', { deadlineMs: DEADLINE, token: TOKEN });
    expect(result.kind).toBe('build-error');
  });

  it('a scheme other than http(s) → transport-error', async () => {
    expect(transportError(await probeSnapshot('ftp://127.0.0.1:21/snapshot', { deadlineMs: DEADLINE }))).toContain(
      'unsupported protocol scheme',
    );
  });

  it('an empty host means this machine', async () => {
    server.setRoute('/snapshot', { kind: 'answer', status: 200, body: '{}' });
    // localhost may resolve to ::1 first; undici then falls back to 127.0.0.1.
    expect(await probeSnapshot(`http://:${server.port}/snapshot`, { deadlineMs: DEADLINE })).toEqual({
      kind: 'response',
      status: 200,
      body: { kind: 'json' },
    });
  });

  it('a server that never answers → transport-error within the deadline', async () => {
    server.setRoute('/snapshot', { kind: 'hang' });
    const started = performance.now();
    expect(await get({ deadlineMs: 300 })).toEqual({ kind: 'transport-error', error: 'no answer within 300ms' });
    expectEndedOnBudget(performance.now() - started, 300);
  });

  it('a slow server inside the deadline is fine', async () => {
    server.setRoute('/snapshot', { kind: 'slow', delayMs: 150, then: { kind: 'answer', status: 200, body: '{}' } });
    expect(await get({ deadlineMs: 2_000 })).toEqual({ kind: 'response', status: 200, body: { kind: 'json' } });
  });

  it('the overall signal ends the probe early', async () => {
    server.setRoute('/snapshot', { kind: 'hang' });
    const started = performance.now();
    const result = await probeSnapshot(server.url('/snapshot'), { deadlineMs: 10_000, signal: AbortSignal.timeout(150) });
    expectEndedWellBefore(performance.now() - started, 10_000);
    expect(result).toEqual({ kind: 'transport-error', error: 'the overall deadline of the run passed before an answer' });
  });

  it('an already aborted overall signal sends nothing', async () => {
    const result = await probeSnapshot(server.url('/snapshot'), { deadlineMs: DEADLINE, signal: AbortSignal.abort() });
    expect(result).toEqual({ kind: 'transport-error', error: 'cancelled before an answer' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('black hole (accepts TCP, never answers)', () => {
  let hole: Blackhole;
  beforeAll(async () => {
    hole = await startBlackhole();
  });
  afterAll(async () => {
    await hole.close();
  });

  it('GET with a 300 ms deadline → transport-error in about 300 ms', async () => {
    const started = performance.now();
    const result = await probeSnapshot(`http://${hole.address}/snapshot`, { deadlineMs: 300, token: TOKEN });
    expect(result).toEqual({ kind: 'transport-error', error: 'no answer within 300ms' });
    expectEndedOnBudget(performance.now() - started, 300);
  });

  it('HEAD with a 2 s deadline ends within it', async () => {
    const started = performance.now();
    const result = await probeRoute(`http://${hole.address}/policy`, { deadlineMs: 2_000 });
    expect(result).toEqual({ kind: 'transport-error', error: 'no answer within 2s' });
    expectEndedOnBudget(performance.now() - started, 2_000);
  });
});

describe('probeRoute (HEAD /policy, /probe)', () => {
  let server: TestHttpServer;
  beforeAll(async () => {
    server = await startHttpServer();
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => {
    server.requests.length = 0;
  });

  it.each([200, 204, 401, 403, 405, 404, 400, 402, 500, 503])('HTTP %i → response with that status', async (status) => {
    server.setRoute('/policy', status === 204 ? { kind: 'answer', status } : { kind: 'answer', status, body: 'body' });
    expect(await probeRoute(server.url('/policy'), { deadlineMs: DEADLINE })).toEqual({ kind: 'response', status });
    expect(server.requests[0]?.method).toBe('HEAD');
  });

  it('an unmounted route → 404', async () => {
    expect(await probeRoute(server.url('/nothing-here'), { deadlineMs: DEADLINE })).toEqual({ kind: 'response', status: 404 });
  });

  it('a 302 without Location → 302 (unresolved)', async () => {
    server.setRoute('/probe', { kind: 'redirect', status: 302 });
    expect(await probeRoute(server.url('/probe'), { deadlineMs: DEADLINE })).toEqual({ kind: 'response', status: 302 });
  });

  it('a redirect is followed with HEAD', async () => {
    server.setRoute('/probe', { kind: 'redirect', status: 303, location: '/probe2' });
    server.setRoute('/probe2', { kind: 'answer', status: 405 });
    expect(await probeRoute(server.url('/probe'), { deadlineMs: DEADLINE })).toEqual({
      kind: 'response',
      status: 405,
      redirect: { count: 1, to: server.url('/probe2'), tokenWithheld: false },
    });
    expect(server.requests.map((r) => r.method)).toEqual(['HEAD', 'HEAD']);
  });

  it('a redirect loop → transport-error', async () => {
    server.setRoute('/probe', { kind: 'redirect-loop', status: 307 });
    expect(await probeRoute(server.url('/probe'), { deadlineMs: DEADLINE })).toEqual({
      kind: 'transport-error',
      error: 'stopped after 10 redirects',
    });
  });

  it('never sends Authorization and does not ask for gzip', async () => {
    server.setRoute('/policy', { kind: 'answer', status: 401 });
    await probeRoute(server.url('/policy'), { deadlineMs: DEADLINE });
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
    expect(server.requests[0]?.headers['accept-encoding']).toBeUndefined();
  });

  it('connection refused → transport-error', async () => {
    const port = await getClosedPort();
    expect(await probeRoute(`http://127.0.0.1:${port}/probe`, { deadlineMs: DEADLINE })).toEqual({
      kind: 'transport-error',
      error: `connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('a URL that does not parse → build-error', async () => {
    const result = await probeRoute('http://[http://x:1]:8081/probe', { deadlineMs: DEADLINE });
    expect(result.kind).toBe('build-error');
    if (result.kind === 'build-error') expect(result.error).toContain('http://[http://x:1]:8081/probe');
  });

  it('a server that never answers → transport-error within the deadline', async () => {
    server.setRoute('/probe', { kind: 'hang' });
    const started = performance.now();
    expect(await probeRoute(server.url('/probe'), { deadlineMs: 300 })).toEqual({
      kind: 'transport-error',
      error: 'no answer within 300ms',
    });
    expectEndedOnBudget(performance.now() - started, 300);
  });
});
