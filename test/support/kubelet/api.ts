/**
 * A small JSON client for the API server, built on client-node's KubeConfig (credentials, CA) and
 * Watch. The stand-in sends and receives the wire format as is: status patches, bindings, events
 * and TokenRequests are easier to get exactly right as plain JSON than through typed models.
 *
 * @module
 */

import * as https from 'node:https';
import { KubeConfig, Watch } from '@kubernetes/client-node';

/** An API answer other than 2xx; `reason` is the Status reason (NotFound, AlreadyExists, ...). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly reason: string;
  constructor(status: number, reason: string, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

/** True for an ApiError with one of the given HTTP statuses. */
export function isStatus(err: unknown, ...statuses: number[]): boolean {
  return err instanceof ApiError && statuses.includes(err.status);
}

/** How a PATCH body is to be interpreted. */
export type PatchType = 'merge' | 'strategic';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** One event of a watch, or the end of it (`err` null when the server closed it normally). */
export type WatchEvent = { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: unknown };

/** The API calls the stand-in makes. */
export interface KubeApi {
  readonly server: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown, type: PatchType): Promise<T>;
  delete(path: string, body?: unknown): Promise<void>;
  /** Starts a watch; resolves with a function that ends it. `done` runs once when it ends. */
  watch(path: string, query: Record<string, string>, onEvent: (ev: WatchEvent) => void, done: (err: unknown) => void): Promise<() => void>;
  close(): void;
}

function loadKubeConfig(kubeconfig: string | KubeConfig): KubeConfig {
  if (typeof kubeconfig !== 'string') return kubeconfig;
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return kc;
}

function statusError(status: number, body: string, what: string): ApiError {
  try {
    const parsed = JSON.parse(body) as { reason?: string; message?: string };
    return new ApiError(status, parsed.reason ?? '', `${what}: HTTP ${status}: ${parsed.message ?? body}`);
  } catch {
    return new ApiError(status, '', `${what}: HTTP ${status}: ${body.slice(0, 500)}`);
  }
}

/** Connects with the credentials of `kubeconfig` (a file or a loaded KubeConfig). */
export async function connectApi(kubeconfig: string | KubeConfig): Promise<KubeApi> {
  const kc = loadKubeConfig(kubeconfig);
  const cluster = kc.getCurrentCluster();
  if (cluster === null) throw new Error('the kubeconfig names no current cluster');
  const base: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(base);
  const agent = new https.Agent({
    keepAlive: true,
    ...(base.ca === undefined ? {} : { ca: base.ca }),
    ...(base.cert === undefined ? {} : { cert: base.cert }),
    ...(base.key === undefined ? {} : { key: base.key }),
    ...(base.rejectUnauthorized === undefined ? {} : { rejectUnauthorized: base.rejectUnauthorized }),
  });
  const authHeaders = { ...(base.headers as Record<string, string> | undefined) };
  const server = cluster.server;

  const request = <T>(method: string, path: string, body: unknown, contentType = 'application/json'): Promise<T> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        new URL(path, server),
        {
          method,
          agent,
          // explicit length: Node sends a DELETE body without one, and the server then reads it as the next request
          headers: {
            ...authHeaders,
            accept: 'application/json',
            ...(payload === undefined ? {} : { 'content-type': contentType, 'content-length': String(Buffer.byteLength(payload)) }),
          },
          timeout: 30_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) {
              reject(statusError(status, text, `${method} ${path}`));
              return;
            }
            try {
              resolve((text === '' ? undefined : JSON.parse(text)) as T);
            } catch (err) {
              reject(err instanceof Error ? err : new Error(String(err)));
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      req.end(payload);
    });

  return {
    server,
    get: (path) => request('GET', path, undefined),
    post: (path, body) => request('POST', path, body),
    patch: (path, body, type) => request('PATCH', path, body, PATCH_CONTENT_TYPES[type]),
    delete: async (path, body) => {
      await request('DELETE', path, body);
    },
    watch: async (path, query, onEvent, done) => {
      const controller = await new Watch(kc).watch(
        path,
        query,
        (type: string, object: unknown) => onEvent({ type: type as WatchEvent['type'], object }),
        done,
      );
      return () => controller.abort();
    },
    close: () => agent.destroy(),
  };
}
