/**
 * A reference cache-plane server for tests and the demo, written from docs/upstream.md §9.1 and §5:
 *
 * - gRPC, plaintext or (with `tls`) TLS only, optionally requiring client certificates:
 *   `grpc.health.v1.Health/Check`, service `""` switchable between the four serving statuses,
 *   `unimplemented` (service not registered) and `hang`;
 * - HTTP (always plain HTTP), the controller-facing listener: exact-path `/snapshot`, `/policy`, `/probe`, each behind its
 *   own TokenReview authenticator (audience, allowed ServiceAccount, 30 s / 32-entry cache), auth
 *   before the method check; `insecureDisableAuth` turns authentication off;
 * - fault switches for what the doctor must detect: missing routes, forced statuses, bad bodies,
 *   hangs, slowness and a TokenReview outage.
 *
 * Test support only; never shipped. Erasable TypeScript (runs under `node file.ts`).
 *
 * @module
 */

import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { describeError } from '../../../src/text/errors.ts';
import { RouteAuthenticator, type AuthCounts } from './auth.ts';
import { HEALTH_MODES, startHealthServer, type GrpcTls, type HealthMode, type HealthServer } from './health.ts';

export type { AuthCounts } from './auth.ts';
export { HEALTH_MODES, type HealthMode } from './health.ts';

/** The three controller-facing routes. */
export type RouteName = 'snapshot' | 'policy' | 'probe';
export const ROUTE_NAMES: readonly RouteName[] = ['snapshot', 'policy', 'probe'];
export const ROUTE_PATHS: Readonly<Record<RouteName, string>> = { snapshot: '/snapshot', policy: '/policy', probe: '/probe' };
/** Methods each route serves once authenticated; the `Allow` header lists them. */
export const ROUTE_METHODS: Readonly<Record<RouteName, readonly string[]>> = {
  snapshot: ['GET'],
  policy: ['POST', 'PUT'],
  probe: ['POST'],
};

export const DEFAULT_ALLOWED_CONTROLLER_SA = 'system:serviceaccount:inference-cache-system:inference-cache-controller-manager';
export const DEFAULT_CONTROLLER_AUDIENCE = 'inferencecache.io/controller';
export const DEFAULT_POLICY_AUDIENCE = 'inferencecache.io/policy';
/** The doctor reads at most this much of a /snapshot body; the `huge` body is larger. */
export const SNAPSHOT_READ_LIMIT = 8 * 1024 * 1024;

/** Bodies a route can send instead of its valid JSON. */
export type BodyFault = 'not-json' | 'huge' | 'bom';

/** Fault switches of one route. */
export interface RouteFaults {
  /** The route is not mounted: every request to it is answered 404 (before authentication). */
  readonly missing?: boolean;
  /** After authentication, answer this status (200–599) whatever the method. */
  readonly status?: number;
  /** The body of a 2xx answer: not JSON, valid JSON larger than 8 MiB, or JSON behind a UTF-8 BOM. */
  readonly body?: BodyFault;
  /** Accept the request and never answer it. */
  readonly hang?: boolean;
  /** Wait this long before handling the request (authentication included). */
  readonly slowMs?: number;
}

/** All fault switches; an absent field means normal behaviour. */
export interface Faults {
  readonly health?: HealthMode;
  readonly snapshot?: RouteFaults;
  readonly policy?: RouteFaults;
  readonly probe?: RouteFaults;
  /** `down`: every TokenReview fails (503) without calling the API server. Cached tokens still pass. */
  readonly tokenReview?: 'up' | 'down';
}

export interface ReferenceServerOptions {
  /** Listening address of both listeners. Default 127.0.0.1. */
  readonly host?: string;
  /** gRPC port; 0 (default) picks a free one. */
  readonly grpcPort?: number;
  /** HTTP port; 0 (default) picks a free one. */
  readonly httpPort?: number;
  /** Where TokenReviews go: a kubeconfig file, a loaded KubeConfig, or (absent) the default loading rules. */
  readonly kubeconfig?: string | KubeConfig;
  /** The one username admitted. Mutually exclusive with `insecureDisableAuth`. */
  readonly allowedControllerSA?: string;
  readonly controllerAudience?: string;
  readonly policyAudience?: string;
  /** No authentication at all: no 401/403/503. */
  readonly insecureDisableAuth?: boolean;
  /** Initial fault switches. */
  readonly faults?: Faults;
  /** A TokenReview slower than this is an API error (503). Default 10 s. */
  readonly tokenReviewTimeoutMs?: number;
  /** Clock of the token caches (tests move it to expire entries). Default Date.now. */
  readonly now?: () => number;
  /** The JSON value GET /snapshot returns. */
  readonly snapshot?: unknown;
  /** Server-side log (refusal reasons, TokenReview errors). Default: silent. */
  readonly log?: (line: string) => void;
  /**
   * Serve TLS on the gRPC port, like upstream's `--tls-cert-file`/`--tls-key-file` (the HTTP listener
   * stays plain HTTP). The files are read once, at start.
   */
  readonly tls?: ReferenceServerTls;
}

/** PEM files of the gRPC listener's TLS (a cert-manager Secret mounts them as `tls.crt`, `tls.key`, `ca.crt`). */
export interface ReferenceServerTls {
  /** The serving certificate followed by any intermediates. */
  readonly certFile: string;
  readonly keyFile: string;
  /** CA bundle that client certificates must chain to; when set, a client without one is refused. */
  readonly clientCaFile?: string;
}

export interface ReferenceServer {
  readonly host: string;
  readonly grpcPort: number;
  readonly httpPort: number;
  /** `host:port` of the gRPC listener. */
  readonly grpcTarget: string;
  /** Whether the gRPC listener speaks TLS. */
  readonly grpcTls: boolean;
  /** `http://host:port` of the HTTP listener. */
  readonly baseUrl: string;
  /** Replaces every fault switch (absent fields reset to normal). */
  setFaults(faults: Faults): void;
  readonly faults: Faults;
  /** Per-route authentication results and TokenReview calls (a copy, taken when read). */
  readonly authStats: Record<RouteName, AuthCounts>;
  /** Health/Check calls answered or left hanging. */
  readonly healthChecks: number;
  /** Forgets every admitted token. */
  clearTokenCaches(): void;
  stop(): Promise<void>;
}

const DEFAULT_SNAPSHOT = {
  kind: 'Snapshot',
  generation: 1,
  backends: [],
  tenants: [],
  policies: [],
};

let hugeBody: Buffer | undefined;

/** A valid JSON document of a little more than 8 MiB (built once). */
function hugeJson(): Buffer {
  if (hugeBody === undefined) {
    const head = Buffer.from('{"padding":"');
    const tail = Buffer.from('"}\n');
    const pad = SNAPSHOT_READ_LIMIT + 4096;
    hugeBody = Buffer.alloc(head.length + pad + tail.length, 'a');
    head.copy(hugeBody, 0);
    tail.copy(hugeBody, head.length + pad);
  }
  return hugeBody;
}

function validateFaults(faults: Faults): void {
  if (faults.health !== undefined && !HEALTH_MODES.includes(faults.health)) throw new Error(`unknown health mode ${String(faults.health)}`);
  if (faults.tokenReview !== undefined && faults.tokenReview !== 'up' && faults.tokenReview !== 'down') {
    throw new Error(`tokenReview must be "up" or "down"`);
  }
  for (const name of ROUTE_NAMES) {
    const rf = faults[name];
    if (rf === undefined) continue;
    if (rf.status !== undefined && !(Number.isInteger(rf.status) && rf.status >= 200 && rf.status <= 599)) {
      throw new Error(`${name}.status must be an integer in 200..599, got ${rf.status}`);
    }
    if (rf.body !== undefined && !['not-json', 'huge', 'bom'].includes(rf.body))
      throw new Error(`${name}.body: unknown ${String(rf.body)}`);
    if (rf.slowMs !== undefined && !(Number.isFinite(rf.slowMs) && rf.slowMs >= 0)) throw new Error(`${name}.slowMs must be >= 0`);
  }
}

function checkSetting(name: string, value: string): void {
  if (value === '') throw new Error(`${name} must not be empty`);
  if (value.trim() !== value) throw new Error(`${name} must not have surrounding whitespace: ${JSON.stringify(value)}`);
}

/** Like Go's http.Error: text/plain, nosniff, the message and a newline. */
function textError(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = Buffer.from(`${message}\n`);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': String(body.length),
  });
  res.end(body);
}

/** The path the mux matches on: the request target without its query, percent-decoded. */
function pathOf(target: string | undefined): string {
  const raw = (target ?? '').split(/[?#]/, 1)[0] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function routeOf(target: string | undefined): RouteName | undefined {
  const path = pathOf(target);
  return ROUTE_NAMES.find((name) => ROUTE_PATHS[name] === path);
}

/** The PEM text of the TLS files; a missing or unreadable file is an error naming it. */
function readTls(tls: ReferenceServerTls | undefined): GrpcTls | undefined {
  if (tls === undefined) return undefined;
  const read = (what: string, file: string): string => {
    checkSetting(`TLS ${what} file`, file);
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`reading the TLS ${what} file: ${describeError(err)}`, { cause: err });
    }
  };
  const certChainPem = read('certificate', tls.certFile);
  const keyPem = read('key', tls.keyFile);
  if (tls.clientCaFile === undefined) return { certChainPem, keyPem };
  return { certChainPem, keyPem, clientCaPem: read('client CA', tls.clientCaFile) };
}

/** Starts both listeners. Rejects (and leaves nothing running) on a bad option or a busy port. */
export async function startReferenceServer(opts: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const host = opts.host ?? '127.0.0.1';
  const insecure = opts.insecureDisableAuth === true;
  const log = opts.log ?? ((): void => undefined);
  let faults: Faults = opts.faults ?? {};
  validateFaults(faults);

  let authenticators: Record<RouteName, RouteAuthenticator> | undefined;
  if (insecure) {
    if (opts.allowedControllerSA !== undefined) throw new Error('insecureDisableAuth and allowedControllerSA are mutually exclusive');
  } else {
    const allowed = opts.allowedControllerSA ?? DEFAULT_ALLOWED_CONTROLLER_SA;
    const controllerAudience = opts.controllerAudience ?? DEFAULT_CONTROLLER_AUDIENCE;
    const policyAudience = opts.policyAudience ?? DEFAULT_POLICY_AUDIENCE;
    checkSetting('allowed controller ServiceAccount', allowed);
    checkSetting('controller audience', controllerAudience);
    checkSetting('policy audience', policyAudience);
    let kubeConfig: KubeConfig;
    if (opts.kubeconfig instanceof KubeConfig) kubeConfig = opts.kubeconfig;
    else {
      kubeConfig = new KubeConfig();
      if (opts.kubeconfig === undefined) kubeConfig.loadFromDefault();
      else kubeConfig.loadFromFile(opts.kubeconfig);
    }
    const make = (audience: string): RouteAuthenticator =>
      new RouteAuthenticator({
        audience,
        allowedUsername: allowed,
        kubeConfig,
        reviewTimeoutMs: opts.tokenReviewTimeoutMs ?? 10_000,
        now: opts.now ?? Date.now,
        reviewDown: () => faults.tokenReview === 'down',
      });
    authenticators = {
      snapshot: make(controllerAudience),
      policy: make(policyAudience),
      probe: make(controllerAudience),
    };
  }

  const snapshotBody = Buffer.from(JSON.stringify(opts.snapshot ?? DEFAULT_SNAPSHOT));
  const successBody: Record<RouteName, Buffer> = {
    snapshot: snapshotBody,
    policy: Buffer.from('{"status":"accepted"}'),
    probe: Buffer.from('{"status":"ok"}'),
  };

  let stopped = false;
  const sleepers = new Set<() => void>();
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
    });

  const sendJson = (res: http.ServerResponse, status: number, route: RouteName, fault: BodyFault | undefined): void => {
    if (status === 204 || status === 304) {
      res.writeHead(status);
      res.end();
      return;
    }
    let body = successBody[route];
    if (fault === 'not-json') body = Buffer.from('<html><body>this is not JSON</body></html>\n');
    else if (fault === 'huge') body = hugeJson();
    else if (fault === 'bom') body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
    res.end(body);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    req.resume(); // request bodies are not used
    const route = routeOf(req.url);
    const rf: RouteFaults = route === undefined ? {} : (faults[route] ?? {});
    if (route === undefined || rf.missing === true) {
      textError(res, 404, '404 page not found');
      return;
    }
    if (rf.hang === true) return; // accepted, never answered; stop() closes the connection
    if (rf.slowMs !== undefined && rf.slowMs > 0) {
      await sleep(rf.slowMs);
      if (stopped) return;
    }
    if (authenticators !== undefined) {
      const decision = await authenticators[route].authenticate(req.headers.authorization);
      if (decision.result !== 'ok') {
        log(`${req.method ?? ''} ${ROUTE_PATHS[route]} -> ${decision.status} (${decision.result}): ${decision.detail ?? ''}`);
        // Upstream's fixed strings end in a newline and http.Error adds another.
        textError(res, decision.status, `${decision.message}\n`);
        return;
      }
    }
    if (rf.status !== undefined) {
      sendJson(res, rf.status, route, rf.body);
      return;
    }
    const allowed = ROUTE_METHODS[route];
    if (!allowed.includes(req.method ?? '')) {
      textError(res, 405, 'method not allowed', { Allow: allowed.join(', ') });
      return;
    }
    sendJson(res, 200, route, rf.body);
  };

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`handler error: ${describeError(err)}`);
      if (!res.headersSent) textError(res, 500, 'internal error');
      else res.destroy();
    });
  });

  const grpcTls = readTls(opts.tls);
  const health: HealthServer = await startHealthServer(host, opts.grpcPort ?? 0, faults.health ?? 'SERVING', grpcTls);
  try {
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(opts.httpPort ?? 0, host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await health.stop();
    throw err;
  }
  const httpPort = (httpServer.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;

  const zero = (): AuthCounts => ({ ok: 0, unauth: 0, forbidden: 0, error: 0, tokenReviews: 0 });

  return {
    host,
    grpcPort: health.port,
    httpPort,
    grpcTarget: `${hostForUrl}:${health.port}`,
    grpcTls: grpcTls !== undefined,
    baseUrl: `http://${hostForUrl}:${httpPort}`,
    setFaults(next: Faults): void {
      validateFaults(next);
      faults = next;
      health.setMode(next.health ?? 'SERVING');
    },
    get faults(): Faults {
      return faults;
    },
    get authStats(): Record<RouteName, AuthCounts> {
      return {
        snapshot: authenticators ? { ...authenticators.snapshot.counts } : zero(),
        policy: authenticators ? { ...authenticators.policy.counts } : zero(),
        probe: authenticators ? { ...authenticators.probe.counts } : zero(),
      };
    },
    get healthChecks(): number {
      return health.checks;
    },
    clearTokenCaches(): void {
      if (authenticators) for (const name of ROUTE_NAMES) authenticators[name].cache.clear();
    },
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      for (const wake of [...sleepers]) wake();
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await Promise.all([closed, health.stop()]);
    },
  };
}
