/**
 * The HTTP probes of the controller-facing listener (docs/upstream.md §2.2, §2.3): GET /snapshot
 * with the doctor's bearer token, and HEAD /policy and HEAD /probe without one.
 *
 * Behaves like Go's default HTTP client where it matters to the checks: redirects are followed (the
 * tenth redirect answer is an error), `Accept-Encoding: gzip` is sent on GET and a gzip body is
 * inflated, and HTTP_PROXY/HTTPS_PROXY/NO_PROXY are honoured except for localhost and loopback
 * addresses. Deliberate deviations: a body over the cap is reported as too large (docs/deviations.md#dev-7); the
 * Authorization header goes only to the exact origin (scheme, host and port) it was meant for, where Go
 * keeps it for any port of the same host and its subdomains; and every redirect followed is recorded,
 * so that the findings say where the answer really came from.
 *
 * @module
 */

import { isIP } from 'node:net';
import { createGunzip } from 'node:zlib';
import { pipeline, type Readable } from 'node:stream';
import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { startBudget, type ProbeBudget } from './deadline.ts';
import { describeError, oneLine, redact } from '../text/errors.ts';
import type { HttpResult, Redirect, SnapshotBody } from './results.ts';

/** Default cap on the (inflated) /snapshot body: 8 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Redirect answers counted up to this number end the request with an error, as in Go. */
export const MAX_REDIRECTS = 10;

/** Nesting deeper than this makes Go's JSON validator reject a document; we do the same. */
const MAX_JSON_DEPTH = 10_000;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface SnapshotOptions {
  /** Bearer token; the Authorization header is sent only when this is non-empty. */
  readonly token?: string;
  /** This probe's own time budget, covering connect, redirects and reading the body. */
  readonly deadlineMs: number;
  /** The run-wide signal; aborting it ends the probe early. */
  readonly signal?: AbortSignal;
  /** Cap on the inflated body of a 200 answer. Default 8 MiB. */
  readonly maxBodyBytes?: number;
}

export interface RouteOptions {
  /** This probe's own time budget. */
  readonly deadlineMs: number;
  /** The run-wide signal; aborting it ends the probe early. */
  readonly signal?: AbortSignal;
}

// ---- JSON validity -----------------------------------------------------------------------------

/** True when no array/object nesting in `text` goes deeper than `limit` (strings are skipped). */
function nestingWithin(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return false;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return true;
}

const STRICT_UTF8 = () => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Whether `bytes` hold exactly one JSON value (RFC 8259, surrounding whitespace allowed). A leading
 * byte-order mark, invalid UTF-8, an empty body and nesting deeper than 10 000 levels are invalid.
 */
export function isStrictJson(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = STRICT_UTF8().decode(bytes);
  } catch {
    return false;
  }
  if (!nestingWithin(text, MAX_JSON_DEPTH)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// ---- transport ---------------------------------------------------------------------------------

/** Whether Go's proxy-from-environment would bypass the proxy for this host: localhost and loopback. */
function bypassesProxy(hostname: string): boolean {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost') return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

/** The dispatchers of one probe, made on first use and destroyed when the probe ends. */
class Dispatchers {
  #direct: Agent | undefined;
  #fromEnv: EnvHttpProxyAgent | undefined;
  readonly #connectTimeoutMs: number;

  constructor(budgetMs: number) {
    // The budget's signal ends the request; undici's own connect timeout must not fire first.
    this.#connectTimeoutMs = budgetMs + 1_000;
  }

  for(url: URL): Dispatcher {
    const connect = { timeout: this.#connectTimeoutMs };
    if (bypassesProxy(url.hostname)) return (this.#direct ??= new Agent({ connect }));
    return (this.#fromEnv ??= new EnvHttpProxyAgent({ connect }));
  }

  destroy(): void {
    for (const d of [this.#direct, this.#fromEnv]) d?.destroy().catch(() => undefined);
  }
}

/** Parses a probe URL; Go dials an empty host (`http://:8081/x`) as this machine, and so do we. */
function parseUrl(text: string): URL | string {
  const withHost = text.replace(/^(https?:\/\/):(?=\d*(?:[/?#]|$))/i, '$1localhost:');
  try {
    return new URL(withHost);
  } catch (err) {
    return `cannot parse URL ${JSON.stringify(text)}: ${describeError(err)}`;
  }
}

function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

type Exchange =
  | { readonly kind: 'failed'; readonly result: HttpResult }
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly headers: Dispatcher.ResponseData['headers'];
      readonly body: Readable;
      readonly redirect?: Redirect;
    };

/**
 * Sends `method url`, following redirects as Go's client does, except that the Authorization header
 * is sent to the origin of `url` only: a redirect to another port of the same host may reach another
 * server, which must not see the doctor's token.
 */
async function exchange(
  method: 'GET' | 'HEAD',
  url: URL,
  headers: Readonly<Record<string, string>>,
  budget: ProbeBudget,
  dispatchers: Dispatchers,
  describe: (err: unknown) => string,
): Promise<Exchange> {
  const withoutAuthorization = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
  const carriesToken = Object.keys(withoutAuthorization).length !== Object.keys(headers).length;
  let current = url;
  let tokenWithheld = false;
  for (let redirects = 0; ;) {
    const sameOrigin = current.origin === url.origin;
    if (carriesToken && !sameOrigin) tokenWithheld = true;
    if (current.protocol !== 'http:' && current.protocol !== 'https:') {
      return {
        kind: 'failed',
        result: { kind: 'transport-error', error: `unsupported protocol scheme ${JSON.stringify(current.protocol.replace(/:$/, ''))}` },
      };
    }
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(current, {
        method,
        headers: sameOrigin ? headers : withoutAuthorization,
        signal: budget.signal,
        dispatcher: dispatchers.for(current),
      });
    } catch (err) {
      return { kind: 'failed', result: { kind: 'transport-error', error: describe(err) } };
    }
    const location = firstHeader(answer.headers['location']);
    if (!REDIRECT_STATUSES.has(answer.statusCode) || location === undefined) {
      const redirect = redirects === 0 ? undefined : { count: redirects, to: current.href, tokenWithheld };
      return {
        kind: 'answered',
        status: answer.statusCode,
        headers: answer.headers,
        body: answer.body,
        ...(redirect === undefined ? {} : { redirect }),
      };
    }
    discard(answer.body);
    redirects++;
    if (redirects >= MAX_REDIRECTS) {
      return { kind: 'failed', result: { kind: 'transport-error', error: `stopped after ${MAX_REDIRECTS} redirects` } };
    }
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      return {
        kind: 'failed',
        result: { kind: 'transport-error', error: `HTTP ${answer.statusCode} answer with a Location header that is not a URL` },
      };
    }
    current = next;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value[0];
  return value;
}

/** What to say when something failed: the budget's reason when it ran out, else the error itself. */
function describerFor(budget: ProbeBudget, secrets: readonly (string | undefined)[]): (err: unknown) => string {
  return (err) => {
    const text = budget.signal.aborted ? (budget.reason() ?? describeError(err)) : describeError(err);
    return oneLine(redact(text, secrets));
  };
}

// ---- body --------------------------------------------------------------------------------------

/** Reads at most `limit + 1` bytes of the (inflated) body and classifies them. */
async function readSnapshotBody(
  body: Readable,
  contentEncoding: string | undefined,
  limit: number,
  describe: (err: unknown) => string,
): Promise<SnapshotBody> {
  body.on('error', () => undefined);
  let source: Readable = body;
  if (contentEncoding !== undefined && contentEncoding.trim().toLowerCase() === 'gzip') {
    source = pipeline(body, createGunzip(), () => undefined);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of source) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      total += buf.length;
      if (total > limit) {
        source.destroy();
        body.destroy();
        return { kind: 'too-large', limitBytes: limit };
      }
      chunks.push(buf);
    }
  } catch (err) {
    body.destroy();
    const code = (err as { code?: unknown } | null)?.code;
    const inflating = source !== body && typeof code === 'string' && code.startsWith('Z_');
    return { kind: 'read-error', error: inflating ? `gzip body: ${describe(err)}` : describe(err) };
  }
  return isStrictJson(Buffer.concat(chunks, total)) ? { kind: 'json' } : { kind: 'not-json' };
}

// ---- the probes --------------------------------------------------------------------------------

/**
 * GET `url` with `Authorization: Bearer <token>` when the token is non-empty. A 200 answer's body is
 * read (at most `maxBodyBytes`) and classified; any other status is returned without a body. Never
 * throws, and no error text contains the token.
 */
export async function probeSnapshot(url: string, opts: SnapshotOptions): Promise<HttpResult> {
  const token = opts.token ?? '';
  const secrets = [token];
  const parsed = parseUrl(url);
  if (typeof parsed === 'string') return { kind: 'build-error', error: oneLine(redact(parsed, secrets)) };
  const limit = Math.max(0, Math.floor(opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES));

  const budget = startBudget(opts.deadlineMs, opts.signal);
  const dispatchers = new Dispatchers(budget.ms);
  const describe = describerFor(budget, secrets);
  try {
    if (budget.signal.aborted) return { kind: 'transport-error', error: budget.reason() ?? 'cancelled' };
    const headers: Record<string, string> = { 'accept-encoding': 'gzip' };
    if (token !== '') headers['authorization'] = `Bearer ${token}`;
    const answer = await exchange('GET', parsed, headers, budget, dispatchers, describe);
    if (answer.kind === 'failed') return answer.result;
    const redirect = answer.redirect === undefined ? {} : { redirect: answer.redirect };
    if (answer.status !== 200) {
      discard(answer.body);
      return { kind: 'response', status: answer.status, ...redirect };
    }
    const body = await readSnapshotBody(answer.body, firstHeader(answer.headers['content-encoding']), limit, describe);
    return { kind: 'response', status: 200, body, ...redirect };
  } catch (err) {
    return { kind: 'transport-error', error: describe(err) };
  } finally {
    budget.dispose();
    dispatchers.destroy();
  }
}

/** HEAD `url` with no Authorization header; only the status matters. Never throws. */
export async function probeRoute(url: string, opts: RouteOptions): Promise<HttpResult> {
  const parsed = parseUrl(url);
  if (typeof parsed === 'string') return { kind: 'build-error', error: oneLine(parsed) };

  const budget = startBudget(opts.deadlineMs, opts.signal);
  const dispatchers = new Dispatchers(budget.ms);
  const describe = describerFor(budget, []);
  try {
    if (budget.signal.aborted) return { kind: 'transport-error', error: budget.reason() ?? 'cancelled' };
    const answer = await exchange('HEAD', parsed, {}, budget, dispatchers, describe);
    if (answer.kind === 'failed') return answer.result;
    discard(answer.body);
    return { kind: 'response', status: answer.status, ...(answer.redirect === undefined ? {} : { redirect: answer.redirect }) };
  } catch (err) {
    return { kind: 'transport-error', error: describe(err) };
  } finally {
    budget.dispose();
    dispatchers.destroy();
  }
}
