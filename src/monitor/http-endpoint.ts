/**
 * The monitor's one port: `/metrics`, `/healthz` and `/readyz`, to GET (or HEAD) only. What each
 * answers is given by the monitor; this file is the HTTP around it, bounded so that a slow or idle
 * client cannot hold the port, and closed at once, open connections included, when the monitor stops.
 *
 * @module
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from '../cli/options.ts';
import { describeError } from '../text/errors.ts';

/** An answer of one path: status, content type and body. */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** What the monitor answers on each path. `metrics` is told the scraper's Accept header. */
export interface Routes {
  readonly metrics: (accept: string | undefined) => Answer;
  readonly healthz: () => Answer;
  readonly readyz: () => Answer;
}

/** The port, serving. */
export interface Endpoint {
  /** The address it listens on (the port the system chose for port 0). */
  readonly address: ListenAddress;
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

/** Why the monitor could not start serving (the port is taken, the address is not this machine's). */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/** A client has this long to send its request headers, and its whole request. */
const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** An idle kept-alive connection is closed after this long (Prometheus scrapes every 15 s or more). */
const KEEP_ALIVE_MS = 5_000;

function answer(res: ServerResponse, method: string | undefined, { status, contentType, body }: Answer): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(method === 'HEAD' ? undefined : body);
}

const TEXT = 'text/plain; charset=utf-8';

function handle(routes: Routes, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0];
  const route = path === '/metrics' ? 'metrics' : path === '/healthz' ? 'healthz' : path === '/readyz' ? 'readyz' : undefined;
  if (route === undefined) {
    answer(res, req.method, { status: 404, contentType: TEXT, body: 'not found: the paths are /metrics, /healthz and /readyz\n' });
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    answer(res, req.method, { status: 405, contentType: TEXT, body: 'method not allowed: GET or HEAD\n' });
    return;
  }
  answer(res, req.method, route === 'metrics' ? routes.metrics(req.headers.accept) : routes[route]());
}

/**
 * Listens on `listen` and answers with `routes`.
 *
 * @throws ListenError when the address cannot be listened on.
 */
export async function serveEndpoint(listen: ListenAddress, routes: Routes): Promise<Endpoint> {
  const server: Server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, (req, res) => {
    try {
      handle(routes, req, res);
    } catch (err) {
      // A bug in making an answer: said to the client, and the port keeps serving.
      if (!res.headersSent) answer(res, req.method, { status: 500, contentType: TEXT, body: `error: ${describeError(err)}\n` });
      else res.destroy();
    }
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  const shown = listen.host === '' ? `:${listen.port}` : `${listen.host}:${listen.port}`;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new ListenError(`cannot listen on ${shown}: ${describeError(err)}`)));
    server.listen({ port: listen.port, ...(listen.host === '' ? {} : { host: listen.host }) }, resolve);
  });
  const bound = server.address() as AddressInfo;
  return {
    address: { host: listen.host, port: bound.port },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
