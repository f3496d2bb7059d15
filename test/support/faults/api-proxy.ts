// A TLS proxy in front of the test control plane's kube-apiserver that misbehaves on request: it
// delays, drops, answers 429/500/garbage, sends malformed lists or a continue token without end,
// rewrites what the API server answered (hostile objects; asked of it in JSON, which the doctor, asking
// for Pods and Events in protobuf first, then reads as an API server's fallback), or hangs. Everything
// it does not match it forwards untouched, with the caller's own credentials, so RBAC and the audit log
// stay real.
import { readFileSync } from 'node:fs';
import { request as httpsRequest, createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createServingPki } from '../../../dev/cluster/pki/serving-pki.ts';

/** What the proxy does with a request it matches. */
export type ProxyAction =
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'drop' }
  | { readonly kind: 'hang' }
  | { readonly kind: 'status'; readonly status: number; readonly body?: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: 'body'; readonly body: string }
  | { readonly kind: 'endless-continue' }
  | { readonly kind: 'transform'; readonly change: (answer: unknown) => unknown };

/** A rule: the first whose path pattern matches a request decides. */
export interface ProxyRule {
  /** Matched against the path without the query. */
  readonly path: RegExp;
  readonly action: ProxyAction;
}

export interface ApiProxy {
  /** `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** The CA that signed the proxy's certificate (a kubeconfig for the proxy trusts it). */
  readonly caFile: string;
  /** Replaces the rules; `[]` forwards everything. */
  setRules(rules: readonly ProxyRule[]): void;
  /** How many requests matched a rule since the rules were last set. */
  readonly matched: () => number;
  close(): Promise<void>;
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** Starts the proxy for `upstream` (the API server's URL, trusted through `upstreamCaFile`); its PKI goes to `dir`. */
export async function startApiProxy(upstream: { readonly server: string; readonly caFile: string }, dir: string): Promise<ApiProxy> {
  const pki = createServingPki(join(dir, 'proxy-pki'), 'faults-proxy');
  const target = new URL(upstream.server);
  const upstreamCa = readFileSync(upstream.caFile);
  let rules: readonly ProxyRule[] = [];
  let matched = 0;
  const sockets = new Set<Socket>();

  /** Forwards the request; `json` asks the API server for JSON whatever the client accepts (to rewrite the answer). */
  const forward = async (
    req: IncomingMessage,
    body: Buffer,
    json: boolean,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: target.host, ...(json ? { accept: 'application/json' } : {}) };
      const out = httpsRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers, ca: upstreamCa },
        (res) => {
          void readBody(res).then((answer) => {
            const kept: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers))
              if (typeof v === 'string' && k !== 'content-length' && k !== 'transfer-encoding') kept[k] = v;
            resolve({ status: res.statusCode ?? 502, headers: kept, body: answer });
          }, reject);
        },
      );
      out.on('error', reject);
      out.end(body);
    });

  const send = (
    res: ServerResponse,
    status: number,
    body: Buffer | string,
    headers: Record<string, string> = { 'content-type': 'application/json' },
  ) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    res.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
    res.end(bytes);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const path = new URL(req.url ?? '/', 'https://proxy').pathname;
    const rule = rules.find((r) => r.path.test(path));
    if (rule !== undefined) matched++;
    const action = rule?.action;
    switch (action?.kind) {
      case 'drop':
        req.socket.destroy();
        return;
      case 'hang':
        return;
      case 'status':
        send(res, action.status, action.body ?? '', { 'content-type': 'application/json', ...action.headers });
        return;
      case 'body':
        send(res, 200, action.body);
        return;
      case 'endless-continue':
        send(res, 200, JSON.stringify({ kind: 'List', apiVersion: 'v1', metadata: { continue: 'never-the-last-page' }, items: [] }));
        return;
      case 'delay':
        await new Promise((r) => setTimeout(r, action.ms));
        break;
      case 'transform':
      case undefined:
        break;
    }
    const answer = await forward(req, body, action?.kind === 'transform');
    if (action?.kind === 'transform' && answer.status === 200) {
      send(res, 200, JSON.stringify(action.change(JSON.parse(answer.body.toString('utf8')))), answer.headers);
      return;
    }
    send(res, answer.status, answer.body, answer.headers);
  };

  const server: Server = createServer({ key: readFileSync(pki.servingKey), cert: readFileSync(pki.servingCert) }, (req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    server: `https://127.0.0.1:${port}`,
    caFile: pki.caFile,
    setRules: (next) => {
      rules = next;
      matched = 0;
    },
    matched: () => matched,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
