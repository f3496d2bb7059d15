// A loopback HTTP/1.1 server whose routes can be told how to misbehave, and which records every
// request it saw (method, path, headers) so tests can assert what the client sent.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/** What a route does. Unlisted paths answer 404. */
export type RouteBehaviour =
  /** Answer `status` with an optional body (raw bytes or text) and headers; `gzip` compresses the body. */
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly body?: string | Uint8Array;
      readonly headers?: Readonly<Record<string, string>>;
      readonly gzip?: boolean;
    }
  /** Answer 200 with a body of `bytes` bytes streamed in chunks: a JSON string of that total size. */
  | { readonly kind: 'huge'; readonly bytes: number; readonly gzip?: boolean }
  /** Answer `status` (default 302) pointing back at the same path, forever. */
  | { readonly kind: 'redirect-loop'; readonly status?: number }
  /** Answer `status` with `location` (absent = no Location header at all). */
  | { readonly kind: 'redirect'; readonly status: number; readonly location?: string }
  /** Never answer (the connection stays open until the server closes). */
  | { readonly kind: 'hang' }
  /** Wait `delayMs`, then behave as `then`. */
  | { readonly kind: 'slow'; readonly delayMs: number; readonly then: RouteBehaviour }
  /** Answer 200, announce `declaredBytes`, send `sentBytes`, then reset the connection. */
  | { readonly kind: 'reset-mid-body'; readonly declaredBytes?: number; readonly sentBytes?: number }
  /** Answer 200, announce `declaredBytes`, send `sentBytes`, then go silent with the connection open. */
  | { readonly kind: 'stall-mid-body'; readonly declaredBytes?: number; readonly sentBytes?: number };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

export interface TestHttpServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** `base + path`. */
  readonly url: (path: string) => string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  readonly setRoute: (path: string, behaviour: RouteBehaviour) => void;
  /** Closes the listener and destroys every open connection (hanging ones included). */
  readonly close: () => Promise<void>;
}

const CHUNK = 64 * 1024;

function serve(behaviour: RouteBehaviour, req: IncomingMessage, res: ServerResponse): void {
  switch (behaviour.kind) {
    case 'answer': {
      const headers: Record<string, string> = { ...behaviour.headers };
      let body: Uint8Array | undefined =
        behaviour.body === undefined
          ? undefined
          : typeof behaviour.body === 'string'
            ? Buffer.from(behaviour.body, 'utf8')
            : behaviour.body;
      if (behaviour.gzip === true) {
        body = gzipSync(body ?? Buffer.alloc(0));
        headers['content-encoding'] = 'gzip';
      }
      if (body !== undefined) headers['content-length'] = String(body.length);
      res.writeHead(behaviour.status, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    case 'huge': {
      if (behaviour.gzip === true) {
        // Highly compressible: a tiny transfer that inflates to `bytes` bytes.
        const inner = Math.max(0, behaviour.bytes - 2);
        const body = gzipSync(Buffer.concat([Buffer.from('"'), Buffer.alloc(inner, 'a'), Buffer.from('"')]));
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) });
        res.end(body);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(behaviour.bytes) });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      let remaining = behaviour.bytes;
      let first = true;
      const pump = (): void => {
        while (remaining > 0) {
          const size = Math.min(CHUNK, remaining);
          const chunk = Buffer.alloc(size, 'a');
          if (first) chunk[0] = 0x22; // opening quote
          if (remaining === size) chunk[size - 1] = 0x22; // closing quote
          first = false;
          remaining -= size;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
      return;
    }
    case 'redirect-loop': {
      res.writeHead(behaviour.status ?? 302, { location: req.url ?? '/', 'content-length': '0' });
      res.end();
      return;
    }
    case 'redirect': {
      const headers: Record<string, string> = { 'content-length': '0' };
      if (behaviour.location !== undefined) headers['location'] = behaviour.location;
      res.writeHead(behaviour.status, headers);
      res.end();
      return;
    }
    case 'hang':
      return;
    case 'slow': {
      const timer = setTimeout(() => serve(behaviour.then, req, res), behaviour.delayMs);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    case 'reset-mid-body': {
      const declared = behaviour.declaredBytes ?? 1024;
      const sent = behaviour.sentBytes ?? 10;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(declared) });
      res.write(Buffer.alloc(sent, 0x20), () => {
        setTimeout(() => res.socket?.resetAndDestroy(), 20);
      });
      return;
    }
    case 'stall-mid-body': {
      const declared = behaviour.declaredBytes ?? 1024;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(declared) });
      res.write(Buffer.alloc(behaviour.sentBytes ?? 10, 0x20));
      return;
    }
  }
}

/** Starts the server on 127.0.0.1 with an ephemeral port, or where `listen` says. */
export async function startHttpServer(
  routes: Readonly<Record<string, RouteBehaviour>> = {},
  listen: { readonly host: string; readonly port: number } = { host: '127.0.0.1', port: 0 },
): Promise<TestHttpServer> {
  const table = new Map<string, RouteBehaviour>(Object.entries(routes));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({ method: req.method ?? '', path, headers: { ...req.headers } });
    req.resume();
    const behaviour = table.get(path) ?? { kind: 'answer', status: 404, body: 'not found\n' };
    serve(behaviour, req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      const addr = server.address();
      if (addr === null || typeof addr === 'string') reject(new Error('no TCP address'));
      else resolve(addr.port);
    });
  });
  const base = `http://${listen.host}:${port}`;
  return {
    port,
    base,
    url: (path) => `${base}${path}`,
    requests,
    setRoute: (path, behaviour) => void table.set(path, behaviour),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
