/**
 * The kubelet endpoint kube-apiserver proxies `pods/log` to:
 * `GET https://<InternalIP>:<kubeletEndpoint.Port>/containerLogs/{ns}/{pod}/{container}` with the
 * query `follow`, `tailLines`, `timestamps`, `previous`, `limitBytes`, `sinceSeconds`, `sinceTime`
 * and `stream`. This is what makes `kubectl logs` and `helm test --logs` work against the stand-in.
 * With a client CA it demands a client certificate signed by it, as a kubelet with
 * `--client-ca-file` does (it does not run SubjectAccessReviews).
 *
 * @module
 */

import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { describeError } from '../../../src/text/errors.ts';
import { parseCriLines, renderRecord, selectRecords, type LogQuery, type LogRecord } from './cri-log.ts';
import type { LogAttempt } from './pod-worker.ts';

/** The log of a container start, or why there is none (HTTP status and message). */
export type LogLookup = { readonly attempt: LogAttempt } | { readonly status: number; readonly error: string };

/** Finds the log the request is for. */
export type LogResolver = (namespace: string, pod: string, container: string, previous: boolean) => LogLookup;

/** Options of `startLogsServer`. */
export interface LogsServerOptions {
  readonly host: string;
  readonly cert: string;
  readonly key: string;
  /** PEM of the CA client certificates must chain to; absent: no client authentication. */
  readonly clientCa?: string | undefined;
  readonly resolve: LogResolver;
  readonly log: (line: string) => void;
}

/** The running endpoint. */
export interface LogsServer {
  readonly port: number;
  close(): Promise<void>;
}

const POLL_MS = 100;

interface Request extends LogQuery {
  readonly follow: boolean;
  readonly previous: boolean;
  readonly limitBytes?: number | undefined;
}

function parseQuery(params: URLSearchParams): Request {
  const int = (name: string): number | undefined => {
    const v = params.get(name);
    if (v === null || v === '') return undefined;
    const n = Number.parseInt(v, 10);
    return Number.isFinite(n) ? n : undefined;
  };
  const sinceSeconds = int('sinceSeconds');
  const sinceTime = params.get('sinceTime');
  const stream = params.get('stream')?.toLowerCase();
  return {
    follow: params.get('follow') === 'true',
    previous: params.get('previous') === 'true',
    timestamps: params.get('timestamps') === 'true',
    tailLines: int('tailLines'),
    limitBytes: int('limitBytes'),
    sinceMs: sinceSeconds !== undefined ? Date.now() - sinceSeconds * 1000 : sinceTime !== null ? Date.parse(sinceTime) : undefined,
    stream: stream === 'stdout' || stream === 'stderr' ? stream : undefined,
  };
}

/** Writes rendered records, honouring limitBytes; returns false once the limit is reached. */
class Sink {
  #left: number;
  private readonly res: http.ServerResponse;
  private readonly query: Request;

  constructor(res: http.ServerResponse, query: Request) {
    this.res = res;
    this.query = query;
    this.#left = query.limitBytes ?? Number.POSITIVE_INFINITY;
  }

  write(records: readonly LogRecord[]): boolean {
    for (const r of records) {
      if (this.query.stream !== undefined && r.stream !== this.query.stream) continue;
      const bytes = Buffer.from(renderRecord(r, this.query.timestamps));
      const part = bytes.subarray(0, Math.min(bytes.length, this.#left));
      this.res.write(part);
      this.#left -= part.length;
      if (this.#left <= 0) return false;
    }
    return true;
  }
}

/** Reads the complete lines appended since `offset`; returns them and the new offset. */
function readFrom(file: string, offset: number): { records: LogRecord[]; offset: number } {
  let data: Buffer;
  try {
    data = fs.readFileSync(file).subarray(offset);
  } catch {
    return { records: [], offset };
  }
  const end = data.lastIndexOf(0x0a) + 1;
  return { records: parseCriLines(data.subarray(0, end).toString('utf8')), offset: offset + end };
}

async function serveLog(res: http.ServerResponse, attempt: LogAttempt, query: Request): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  const sink = new Sink(res, query);
  const first = readFrom(attempt.file, 0);
  let offset = first.offset;
  let open = sink.write(selectRecords(first.records, query));
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  while (open && query.follow && !closed) {
    const wasDone = attempt.done;
    const next = readFrom(attempt.file, offset);
    offset = next.offset;
    open = sink.write(next.records);
    if (wasDone && next.records.length === 0) break;
    if (next.records.length === 0) await new Promise((r) => setTimeout(r, POLL_MS));
  }
  res.end();
}

/** Starts the HTTPS endpoint on `host`, on a free port. */
export async function startLogsServer(opts: LogsServerOptions): Promise<LogsServer> {
  const server = https.createServer(
    {
      cert: fs.readFileSync(opts.cert),
      key: fs.readFileSync(opts.key),
      ...(opts.clientCa === undefined ? {} : { ca: opts.clientCa, requestCert: true, rejectUnauthorized: true }),
    },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'https://kubelet');
      if (url.pathname === '/healthz') {
        res.end('ok');
        return;
      }
      const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (req.method !== 'GET' || m === null) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
        return;
      }
      const query = parseQuery(url.searchParams);
      const [ns, pod, container] = [m[1], m[2], m[3]].map((s) => decodeURIComponent(s ?? '')) as [string, string, string];
      const found = opts.resolve(ns, pod, container, query.previous);
      if ('error' in found) {
        res.writeHead(found.status, { 'content-type': 'text/plain' }).end(found.error);
        return;
      }
      serveLog(res, found.attempt, query).catch((err: unknown) => {
        opts.log(`serving log of ${ns}/${pod}/${container} failed: ${describeError(err)}`);
        res.destroy();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
