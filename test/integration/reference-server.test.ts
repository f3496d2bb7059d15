// The reference cache-plane server (dev/cluster/reference-server/) against the real test control
// plane: every row of the :8081 decision table (docs/upstream.md) with real TokenRequest
// tokens and real TokenReviews, the cache rules, insecure mode, every fault
// switch, the gRPC health modes, and the CLI wrapper as a process.
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import * as net from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { ApiException, AuthenticationV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import { pollUntil } from '../../dev/poll.ts';
import { HEALTH_CHECK_PATH, checkGrpcHealth, decodeHealthCheckResponse, encodeHealthCheckRequest } from '../../src/probes/grpc-health.ts';
import { uniqueName } from '../../dev/cluster/objects.ts';
import { applyObjects, createNamespace, loadManifests, retarget } from '../../dev/cluster/manifests.ts';
import { kubeconfigWithToken, requestToken } from '../../dev/cluster/identity.ts';
import { expectEndedOnBudget, expectEndedWellBefore } from '../support/timing.ts';
import {
  SNAPSHOT_READ_LIMIT,
  startReferenceServer,
  type ReferenceServer,
  type ReferenceServerOptions,
} from '../../dev/cluster/reference-server/server.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';
const MAIN = join(PROJECT_ROOT, 'dev/cluster/reference-server/main.ts');

const CONTROLLER_AUD = 'inferencecache.io/controller';
const POLICY_AUD = 'inferencecache.io/policy';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  elapsedMs: number;
}

/** One request on a fresh connection; `auth` is sent verbatim as the Authorization header. */
function send(
  srv: { host: string; httpPort: number },
  method: string,
  path: string,
  opts: { auth?: string; timeoutMs?: number; body?: string } = {},
): Promise<Reply> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const headers: Record<string, string> = {};
    if (opts.auth !== undefined) headers['Authorization'] = opts.auth;
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    const req = http.request({ host: srv.host, port: srv.httpPort, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        const body = Buffer.concat(chunks);
        done({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8'), elapsedMs: Date.now() - started });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${opts.timeoutMs ?? 15_000} ms`)), opts.timeoutMs ?? 15_000);
    req.on('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    req.end(opts.body);
  });
}

const bearer = (token: string): { auth: string } => ({ auth: `Bearer ${token}` });

describe.skipIf(kubeconfig === '')(`reference cache-plane server against the test control plane${skipReason}`, () => {
  const kc = new KubeConfig();
  const ns = uniqueName('refsrv');
  const controllerSA = `system:serviceaccount:${ns}:inference-cache-controller-manager`;
  let serverKubeconfig = '';
  let controllerToken = '';
  let policyToken = '';
  let apiAudienceToken = '';
  let otherSAToken = '';
  let noReviewKubeconfig = '';

  const running: ReferenceServer[] = [];
  const start = async (opts: ReferenceServerOptions = {}): Promise<ReferenceServer> => {
    const srv = await startReferenceServer(
      opts.insecureDisableAuth === true ? opts : { kubeconfig: serverKubeconfig, allowedControllerSA: controllerSA, ...opts },
    );
    running.push(srv);
    return srv;
  };
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.stop()));
  });

  const controllerToken2 = (seconds = 3601): Promise<string> =>
    requestToken(kc, ns, 'inference-cache-controller-manager', [CONTROLLER_AUD], seconds);

  beforeAll(async () => {
    kc.loadFromFile(kubeconfig);
    await createNamespace(kc, ns);
    await applyObjects(kc, retarget(loadManifests('install'), ns));
    const server = inject('server');
    const caFile = inject('caFile');
    serverKubeconfig = kubeconfigWithToken(server, caFile, await requestToken(kc, ns, 'inference-cache-server'));
    noReviewKubeconfig = kubeconfigWithToken(server, caFile, await requestToken(kc, ns, 'default'));
    controllerToken = await requestToken(kc, ns, 'inference-cache-controller-manager', [CONTROLLER_AUD]);
    policyToken = await requestToken(kc, ns, 'inference-cache-controller-manager', [POLICY_AUD]);
    apiAudienceToken = await requestToken(kc, ns, 'inference-cache-controller-manager');
    otherSAToken = await requestToken(kc, ns, 'default', [CONTROLLER_AUD]);

    // The ClusterRoleBinding reaches the authorizer through an informer: wait until the server's
    // identity may create TokenReviews.
    const asServer = new KubeConfig();
    asServer.loadFromFile(serverKubeconfig);
    const reviews = asServer.makeApiClient(AuthenticationV1Api);
    await pollUntil('the server may create TokenReviews', { timeoutMs: 15_000, intervalMs: 100 }, async () => {
      try {
        await reviews.createTokenReview({ body: { spec: { token: controllerToken, audiences: [CONTROLLER_AUD] } } });
        return true;
      } catch (err) {
        if (err instanceof ApiException && err.code === 403) return 'forbidden yet';
        throw err;
      }
    });
  });

  describe('decision table (R-9.1.3)', () => {
    it('answers 401 without a usable bearer token, and sends no TokenReview', async () => {
      const srv = await start();
      const headers = [
        undefined,
        '',
        'Basic x',
        'Bearer ',
        'Bearer',
        'Bearer     ',
        'Token abc',
        'Bearerx abc',
        `Basic ${controllerToken}`,
      ];
      for (const auth of headers) {
        const r = await send(srv, 'GET', '/snapshot', auth === undefined ? {} : { auth });
        expect(r.status, `Authorization ${JSON.stringify(auth)}`).toBe(401);
        expect(r.text).toBe('unauthorized\n\n');
        expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(r.headers['x-content-type-options']).toBe('nosniff');
      }
      expect(srv.authStats.snapshot).toEqual({ ok: 0, unauth: headers.length, forbidden: 0, error: 0, tokenReviews: 0 });
    });

    it('admits the controller token on GET /snapshot with JSON, then from the cache', async () => {
      const srv = await start();
      const first = await send(srv, 'GET', '/snapshot', bearer(controllerToken));
      expect(first.status).toBe(200);
      expect(first.headers['content-type']).toBe('application/json');
      expect(JSON.parse(first.text)).toMatchObject({ kind: 'Snapshot' });
      expect(srv.authStats.snapshot).toMatchObject({ ok: 1, tokenReviews: 1 });

      const second = await send(srv, 'GET', '/snapshot', bearer(controllerToken));
      expect(second.status).toBe(200);
      // The scheme is compared case-insensitively; surrounding whitespace of the token is trimmed.
      expect((await send(srv, 'GET', '/snapshot', { auth: `bearer ${controllerToken}` })).status).toBe(200);
      expect((await send(srv, 'GET', '/snapshot', { auth: `BEARER   ${controllerToken}` })).status).toBe(200);
      expect(srv.authStats.snapshot).toEqual({ ok: 4, unauth: 0, forbidden: 0, error: 0, tokenReviews: 1 });
    });

    it('answers 403 to another ServiceAccount with the right audience, and does not cache it', async () => {
      const srv = await start();
      for (let i = 0; i < 2; i++) {
        const r = await send(srv, 'GET', '/snapshot', bearer(otherSAToken));
        expect(r.status).toBe(403);
        expect(r.text).toBe('forbidden\n\n');
      }
      expect(srv.authStats.snapshot).toEqual({ ok: 0, unauth: 0, forbidden: 2, error: 0, tokenReviews: 2 });
    });

    it('answers 401 when the TokenReview does not authenticate (wrong audience, API audience, garbage)', async () => {
      const srv = await start();
      for (const token of [policyToken, apiAudienceToken, 'not-a-jwt']) {
        const r = await send(srv, 'GET', '/snapshot', bearer(token));
        expect(r.status).toBe(401);
        expect(r.text).toBe('unauthorized\n\n');
      }
      expect(srv.authStats.snapshot).toEqual({ ok: 0, unauth: 3, forbidden: 0, error: 0, tokenReviews: 3 });
    });

    it('/policy wants the policy audience; /snapshot and /probe the controller audience', async () => {
      const srv = await start();
      expect((await send(srv, 'POST', '/policy', { ...bearer(controllerToken), body: '{}' })).status).toBe(401);
      expect((await send(srv, 'POST', '/policy', { ...bearer(policyToken), body: '{}' })).status).toBe(200);
      expect((await send(srv, 'PUT', '/policy', { ...bearer(policyToken), body: '{}' })).status).toBe(200);
      expect((await send(srv, 'POST', '/probe', bearer(policyToken))).status).toBe(401);
      expect((await send(srv, 'POST', '/probe', bearer(controllerToken))).status).toBe(200);
      expect(srv.authStats.policy).toEqual({ ok: 2, unauth: 1, forbidden: 0, error: 0, tokenReviews: 2 });
      expect(srv.authStats.probe).toEqual({ ok: 1, unauth: 1, forbidden: 0, error: 0, tokenReviews: 2 });
    });

    it('keeps one cache per route', async () => {
      const srv = await start();
      expect((await send(srv, 'GET', '/snapshot', bearer(controllerToken))).status).toBe(200);
      expect((await send(srv, 'POST', '/probe', bearer(controllerToken))).status).toBe(200);
      expect((await send(srv, 'POST', '/probe', bearer(controllerToken))).status).toBe(200);
      expect(srv.authStats.snapshot.tokenReviews).toBe(1);
      expect(srv.authStats.probe).toMatchObject({ ok: 2, tokenReviews: 1 });
    });

    it('authenticates before the method check: 401 to an anonymous HEAD, 405 with Allow to an admitted one', async () => {
      const srv = await start();
      for (const path of ['/snapshot', '/policy', '/probe']) {
        const r = await send(srv, 'HEAD', path);
        expect(r.status, path).toBe(401);
        expect(r.headers['allow']).toBeUndefined();
      }
      const cases: [string, string, string, string][] = [
        ['HEAD', '/snapshot', controllerToken, 'GET'],
        ['POST', '/snapshot', controllerToken, 'GET'],
        ['HEAD', '/probe', controllerToken, 'POST'],
        ['GET', '/probe', controllerToken, 'POST'],
        ['HEAD', '/policy', policyToken, 'POST, PUT'],
        ['DELETE', '/policy', policyToken, 'POST, PUT'],
      ];
      for (const [method, path, token, allow] of cases) {
        const r = await send(srv, method, path, bearer(token));
        expect(r.status, `${method} ${path}`).toBe(405);
        expect(r.headers['allow']).toBe(allow);
      }
    });

    it('answers 404 to every other path, before authentication; the query string is not part of the path', async () => {
      const srv = await start();
      for (const path of ['/', '/snapshot/', '/snapshots', '/Snapshot', '/snapshot/x', '/healthz', '/metrics', '/policy/']) {
        const r = await send(srv, 'GET', path, bearer(controllerToken));
        expect(r.status, path).toBe(404);
        expect(r.text).toBe('404 page not found\n');
      }
      expect((await send(srv, 'GET', '/snapshot?watch=1')).status).toBe(401);
      expect(srv.authStats.snapshot).toEqual({ ok: 0, unauth: 1, forbidden: 0, error: 0, tokenReviews: 0 });
    });
  });

  describe('fail-closed 503 (R-9.1.3 step 3)', () => {
    it('when its identity may not create TokenReviews (RBAC)', async () => {
      const logged: string[] = [];
      const srv = await start({ kubeconfig: noReviewKubeconfig, log: (line) => logged.push(line) });
      for (let i = 0; i < 2; i++) {
        const r = await send(srv, 'GET', '/snapshot', bearer(controllerToken));
        expect(r.status).toBe(503);
        expect(r.text).toBe('token review unavailable\n\n');
      }
      expect(srv.authStats.snapshot).toEqual({ ok: 0, unauth: 0, forbidden: 0, error: 2, tokenReviews: 2 });
      expect(logged[0]).toMatch(/^GET \/snapshot -> 503 \(error\): HTTP 403: .*cannot create resource "tokenreviews"/);
      // Still 401 (not 503) when there is no token to review.
      expect((await send(srv, 'HEAD', '/probe')).status).toBe(401);
    });

    it('when the API server is unreachable, or does not answer in time', async () => {
      const closed = net.createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const closedPort = (closed.address() as net.AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      const unreachable = await start({ kubeconfig: kubeconfigWithToken(`https://127.0.0.1:${closedPort}`, inject('caFile'), 'x') });
      expect((await send(unreachable, 'GET', '/snapshot', bearer(controllerToken))).status).toBe(503);

      const sockets = new Set<net.Socket>();
      const silent = net.createServer((s) => sockets.add(s)); // accepts and never speaks TLS
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      try {
        const silentPort = (silent.address() as net.AddressInfo).port;
        const slow = await start({
          kubeconfig: kubeconfigWithToken(`https://127.0.0.1:${silentPort}`, inject('caFile'), 'x'),
          tokenReviewTimeoutMs: 300,
        });
        const r = await send(slow, 'POST', '/probe', bearer(controllerToken));
        expect(r.status).toBe(503);
        expect(r.elapsedMs).toBeLessThan(5_000);
        expect(slow.authStats.probe).toMatchObject({ error: 1, tokenReviews: 1 });
      } finally {
        for (const s of sockets) s.destroy();
        await new Promise<void>((r) => silent.close(() => r()));
      }
    });

    it('tokenReview "down" answers 503 to uncached tokens without calling the API server', async () => {
      const srv = await start();
      expect((await send(srv, 'GET', '/snapshot', bearer(controllerToken))).status).toBe(200);
      srv.setFaults({ tokenReview: 'down' });
      const fresh = await controllerToken2();
      expect((await send(srv, 'GET', '/snapshot', bearer(fresh))).status).toBe(503);
      // The cache is consulted first, as upstream does.
      expect((await send(srv, 'GET', '/snapshot', bearer(controllerToken))).status).toBe(200);
      expect(srv.authStats.snapshot).toEqual({ ok: 2, unauth: 0, forbidden: 0, error: 1, tokenReviews: 1 });
      srv.setFaults({});
      expect((await send(srv, 'GET', '/snapshot', bearer(fresh))).status).toBe(200);
      expect(srv.authStats.snapshot.tokenReviews).toBe(2);
    });
  });

  describe('token cache (R-9.1.4)', () => {
    it('forgets an admitted token once 30 s have passed', async () => {
      let now = 1_000_000;
      const srv = await start({ now: () => now });
      const get = async () => (await send(srv, 'GET', '/snapshot', bearer(controllerToken))).status;
      expect(await get()).toBe(200);
      now += 29_999;
      expect(await get()).toBe(200);
      expect(srv.authStats.snapshot.tokenReviews).toBe(1);
      now += 1; // now == expiry: a miss
      expect(await get()).toBe(200);
      expect(srv.authStats.snapshot.tokenReviews).toBe(2);
      srv.clearTokenCaches();
      expect(await get()).toBe(200);
      expect(srv.authStats.snapshot.tokenReviews).toBe(3);
    });

    it('holds 32 tokens and, when full, evicts the one expiring soonest (not the least recently used)', async () => {
      let now = 5_000_000;
      const srv = await start({ now: () => now });
      // Distinct expirations make distinct tokens even within one second.
      const tokens = await Promise.all(Array.from({ length: 33 }, (_, i) => controllerToken2(3600 + i)));
      expect(new Set(tokens).size).toBe(33);
      const get = async (t: string) => (await send(srv, 'GET', '/snapshot', bearer(t))).status;
      for (const t of tokens.slice(0, 32)) {
        expect(await get(t)).toBe(200);
        now += 10;
      }
      expect(srv.authStats.snapshot.tokenReviews).toBe(32);
      expect(await get(tokens[0] ?? '')).toBe(200); // used most recently, still expiring soonest
      expect(srv.authStats.snapshot.tokenReviews).toBe(32);
      expect(await get(tokens[32] ?? '')).toBe(200); // the 33rd: evicts tokens[0]
      expect(srv.authStats.snapshot.tokenReviews).toBe(33);
      for (const t of tokens.slice(1)) expect(await get(t)).toBe(200);
      expect(srv.authStats.snapshot.tokenReviews).toBe(33);
      expect(await get(tokens[0] ?? '')).toBe(200);
      expect(srv.authStats.snapshot.tokenReviews).toBe(34);
    });
  });

  describe('insecure mode (R-9.1.5)', () => {
    it('never answers 401/403/503: HEAD /policy and /probe are 405, GET /snapshot is 200 JSON', async () => {
      const srv = await start({ insecureDisableAuth: true });
      const policy = await send(srv, 'HEAD', '/policy');
      expect(policy.status).toBe(405);
      expect(policy.headers['allow']).toBe('POST, PUT');
      const probe = await send(srv, 'HEAD', '/probe');
      expect(probe.status).toBe(405);
      expect(probe.headers['allow']).toBe('POST');
      for (const auth of [undefined, 'Basic x', 'Bearer garbage']) {
        const snap = await send(srv, 'GET', '/snapshot', auth === undefined ? {} : { auth });
        expect(snap.status).toBe(200);
        expect(JSON.parse(snap.text)).toMatchObject({ kind: 'Snapshot' });
      }
      expect((await send(srv, 'POST', '/policy', { body: '{}' })).status).toBe(200);
      expect((await send(srv, 'GET', '/nope')).status).toBe(404);
      srv.setFaults({ tokenReview: 'down' });
      expect((await send(srv, 'GET', '/snapshot')).status).toBe(200);
      expect(Object.values(srv.authStats).every((c) => c.ok + c.unauth + c.forbidden + c.error + c.tokenReviews === 0)).toBe(true);
    });

    it('refuses contradictory or padded settings, like upstream', async () => {
      await expect(startReferenceServer({ insecureDisableAuth: true, allowedControllerSA: controllerSA })).rejects.toThrow(
        /mutually exclusive/,
      );
      await expect(start({ allowedControllerSA: ` ${controllerSA}` })).rejects.toThrow(/whitespace/);
      await expect(start({ controllerAudience: '' })).rejects.toThrow(/empty/);
      await expect(start({ policyAudience: 'inferencecache.io/policy\n' })).rejects.toThrow(/whitespace/);
    });
  });

  describe('fault switches', () => {
    it('missing: the route answers 404 before authentication; the others are unaffected', async () => {
      const srv = await start({ faults: { policy: { missing: true } } });
      expect((await send(srv, 'HEAD', '/policy')).status).toBe(404);
      expect((await send(srv, 'POST', '/policy', bearer(policyToken))).status).toBe(404);
      expect((await send(srv, 'HEAD', '/probe')).status).toBe(401);
      expect(srv.authStats.policy.unauth + srv.authStats.policy.ok).toBe(0);
      srv.setFaults({ snapshot: { missing: true }, probe: { missing: true } });
      expect((await send(srv, 'GET', '/snapshot', bearer(controllerToken))).status).toBe(404);
      expect((await send(srv, 'HEAD', '/probe')).status).toBe(404);
      expect((await send(srv, 'HEAD', '/policy')).status).toBe(401);
      srv.setFaults({});
      expect((await send(srv, 'HEAD', '/probe')).status).toBe(401);
    });

    it('status: answered after authentication, whatever the method', async () => {
      const srv = await start({ faults: { snapshot: { status: 500 }, probe: { status: 503 } } });
      expect((await send(srv, 'GET', '/snapshot')).status).toBe(401);
      expect((await send(srv, 'GET', '/snapshot', bearer(controllerToken))).status).toBe(500);
      expect((await send(srv, 'HEAD', '/probe', bearer(controllerToken))).status).toBe(503);
      srv.setFaults({ snapshot: { status: 201 } });
      const created = await send(srv, 'GET', '/snapshot', bearer(controllerToken));
      expect(created.status).toBe(201);
      expect(JSON.parse(created.text)).toMatchObject({ kind: 'Snapshot' });

      const open = await start({ insecureDisableAuth: true, faults: { policy: { status: 500 }, probe: { status: 400 } } });
      expect((await send(open, 'HEAD', '/policy')).status).toBe(500);
      expect((await send(open, 'HEAD', '/probe')).status).toBe(400);
      expect(() => open.setFaults({ probe: { status: 42 } })).toThrow(/200\.\.599/);
    });

    it('body: not-json, huge (> 8 MiB of valid JSON) and bom', async () => {
      const srv = await start({ faults: { snapshot: { body: 'not-json' } } });
      const notJson = await send(srv, 'GET', '/snapshot', bearer(controllerToken));
      expect(notJson.status).toBe(200);
      expect(() => JSON.parse(notJson.text)).toThrow();

      srv.setFaults({ snapshot: { body: 'huge' } });
      const huge = await send(srv, 'GET', '/snapshot', bearer(controllerToken));
      expect(huge.status).toBe(200);
      expect(huge.body.length).toBeGreaterThan(SNAPSHOT_READ_LIMIT);
      expect(() => JSON.parse(huge.text)).not.toThrow();
      expect(() => JSON.parse(huge.body.subarray(0, SNAPSHOT_READ_LIMIT).toString('utf8'))).toThrow();

      srv.setFaults({ snapshot: { body: 'bom' } });
      const bom = await send(srv, 'GET', '/snapshot', bearer(controllerToken));
      expect(bom.status).toBe(200);
      expect([...bom.body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(() => JSON.parse(bom.text)).toThrow(); // the BOM survives decoding as U+FEFF
      expect(JSON.parse(bom.body.subarray(3).toString('utf8'))).toMatchObject({ kind: 'Snapshot' });
    });

    it('hang: the request is accepted and never answered; stop() still ends promptly', async () => {
      const srv = await start({ faults: { policy: { hang: true } } });
      await expect(send(srv, 'HEAD', '/policy', { timeoutMs: 500 })).rejects.toThrow(/no answer within 500 ms/);
      expect((await send(srv, 'HEAD', '/probe')).status).toBe(401);
      const pending = send(srv, 'HEAD', '/policy', { timeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      await srv.stop();
      expectEndedWellBefore(Date.now() - t0, 10_000);
      await expect(pending).rejects.toThrow();
    });

    it('slowMs: the answer comes after the delay', async () => {
      const srv = await start({ insecureDisableAuth: true, faults: { snapshot: { slowMs: 2_000 } } });
      const slow = await send(srv, 'GET', '/snapshot');
      expect(slow.status).toBe(200);
      expectEndedOnBudget(slow.elapsedMs, 2_000);
      const fast = await send(srv, 'HEAD', '/probe');
      expect(fast.status).toBe(405);
      expectEndedWellBefore(fast.elapsedMs, 2_000);
      expect(() => srv.setFaults({ snapshot: { slowMs: -1 } })).toThrow();
    });
  });

  describe('gRPC health (R-5.4)', () => {
    it('reports SERVING by default and whatever status it is switched to', async () => {
      const srv = await start({ insecureDisableAuth: true });
      const check = () => checkGrpcHealth(srv.grpcTarget, { deadlineMs: 2_000 });
      expect(await check()).toEqual({ kind: 'status', status: 'SERVING' });
      for (const status of ['NOT_SERVING', 'UNKNOWN', 'SERVICE_UNKNOWN'] as const) {
        srv.setFaults({ health: status });
        expect(await check()).toEqual({ kind: 'status', status });
      }
      srv.setFaults({ health: 'SERVING' });
      expect(await check()).toEqual({ kind: 'status', status: 'SERVING' });
    });

    it('unimplemented: the health service is not registered; it can come back', async () => {
      const srv = await start({ insecureDisableAuth: true, faults: { health: 'unimplemented' } });
      const result = await checkGrpcHealth(srv.grpcTarget, { deadlineMs: 2_000 });
      expect(result.kind).toBe('error');
      expect(result.kind === 'error' ? result.error : '').toMatch(/^rpc error: code = Unimplemented desc = /);
      srv.setFaults({});
      expect(await checkGrpcHealth(srv.grpcTarget, { deadlineMs: 2_000 })).toEqual({ kind: 'status', status: 'SERVING' });
    });

    it('hang: the call is never answered (the client deadline ends it)', async () => {
      const srv = await start({ insecureDisableAuth: true, faults: { health: 'hang' } });
      const t0 = Date.now();
      const result = await checkGrpcHealth(srv.grpcTarget, { deadlineMs: 400 });
      expect(result.kind === 'error' ? result.error : '').toMatch(/code = DeadlineExceeded/);
      expectEndedOnBudget(Date.now() - t0, 400);
      expect(srv.healthChecks).toBe(1);
    });

    it('answers NOT_FOUND for a named service other than ""', async () => {
      const srv = await start({ insecureDisableAuth: true });
      const client = new Client(srv.grpcTarget, credentials.createInsecure());
      try {
        const call = (service: string) =>
          new Promise<{ err: ServiceError | null; status?: number }>((done) => {
            client.makeUnaryRequest(
              HEALTH_CHECK_PATH,
              () => encodeHealthCheckRequest(service),
              (b: Buffer) => decodeHealthCheckResponse(b),
              null,
              new Metadata(),
              { deadline: Date.now() + 2_000 },
              (err, status) => done({ err, ...(status === undefined ? {} : { status }) }),
            );
          });
        expect((await call('inferencecache.v1.Cache')).err?.code).toBe(5);
        expect(await call('')).toEqual({ err: null, status: 1 });
      } finally {
        client.close();
      }
    });
  });

  describe('the CLI (main.ts)', () => {
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    });

    /** Starts main.ts; resolves with the ports line, or with the exit code when it exits first. */
    const launch = (args: string[]) =>
      new Promise<{ child: ChildProcess; ports?: { grpcPort: number; httpPort: number }; code?: number | null; stderr: () => string }>(
        (done, fail) => {
          const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
          children.push(child);
          let stderr = '';
          child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
          const lines = createInterface({ input: child.stdout });
          lines.once('line', (line) =>
            done({ child, ports: JSON.parse(line) as { grpcPort: number; httpPort: number }, stderr: () => stderr }),
          );
          child.once('exit', (code) => done({ child, code, stderr: () => stderr }));
          child.once('error', fail);
        },
      );
    const exited = (child: ChildProcess) =>
      new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));

    it('runs insecure with a health status and missing routes, and exits 0 on SIGTERM', async () => {
      const run = await launch([
        '--insecure-disable-auth',
        '--health-status',
        'NOT_SERVING',
        '--missing-route',
        '/policy',
        '--missing-route',
        'snapshot',
      ]);
      expect(run.ports, run.stderr()).toBeDefined();
      const srv = { host: '127.0.0.1', httpPort: run.ports?.httpPort ?? 0 };
      expect((await send(srv, 'HEAD', '/policy')).status).toBe(404);
      expect((await send(srv, 'GET', '/snapshot')).status).toBe(404);
      expect((await send(srv, 'HEAD', '/probe')).status).toBe(405);
      expect(await checkGrpcHealth(`127.0.0.1:${run.ports?.grpcPort ?? 0}`, { deadlineMs: 2_000 })).toEqual({
        kind: 'status',
        status: 'NOT_SERVING',
      });
      run.child.kill('SIGTERM');
      expect(await exited(run.child)).toBe(0);
    });

    it('authenticates with the given kubeconfig, ServiceAccount and audiences', async () => {
      const run = await launch([
        '--kubeconfig',
        serverKubeconfig,
        '--allowed-controller-sa',
        controllerSA,
        '--controller-audience',
        CONTROLLER_AUD,
        '--policy-audience',
        POLICY_AUD,
      ]);
      expect(run.ports, run.stderr()).toBeDefined();
      const srv = { host: '127.0.0.1', httpPort: run.ports?.httpPort ?? 0 };
      expect((await send(srv, 'GET', '/snapshot', bearer(controllerToken))).status).toBe(200);
      expect((await send(srv, 'GET', '/snapshot', bearer(otherSAToken))).status).toBe(403);
      expect((await send(srv, 'HEAD', '/policy')).status).toBe(401);
      expect((await send(srv, 'PUT', '/policy', bearer(policyToken))).status).toBe(200);
      run.child.kill('SIGTERM');
      expect(await exited(run.child)).toBe(0);
      expect(run.stderr()).toMatch(/-> 403 \(forbidden\)/);
    });

    it('exits 2 on contradictory or unknown flags', async () => {
      for (const args of [
        ['--insecure-disable-auth', '--allowed-controller-sa', controllerSA],
        ['--insecure-disable-auth', '--health-status', 'SLEEPY'],
        ['--insecure-disable-auth', '--missing-route', '/metrics'],
        ['--insecure-disable-auth', '--grpc-port', 'x'],
        ['--bogus'],
      ]) {
        const run = await launch(args);
        expect(run.ports, args.join(' ')).toBeUndefined();
        expect(run.code, args.join(' ')).toBe(2);
      }
    });
  });
});
