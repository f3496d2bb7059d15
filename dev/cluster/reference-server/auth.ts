/**
 * Bearer-token authentication of the reference server's controller-facing routes, written from
 * docs/upstream.md §9.1 (R-9.1.2 … ): one authenticator per route, each with its own
 * audience, its own cache of admitted tokens and its own counters.
 *
 * Test support only; never shipped.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { ApiException, AuthenticationV1Api, Observable, type KubeConfig, type V1TokenReview } from '@kubernetes/client-node';
import { describeError } from '../../../src/text/errors.ts';

/** The four results upstream counts per route. */
export type AuthResult = 'ok' | 'unauth' | 'forbidden' | 'error';

/** Counters of one route's authenticator. */
export interface AuthCounts {
  ok: number;
  unauth: number;
  forbidden: number;
  error: number;
  /** TokenReview calls actually sent to the API server (cache hits and the forced outage send none). */
  tokenReviews: number;
}

/** Admitted tokens live this long. */
export const CACHE_TTL_MS = 30_000;
/** At most this many admitted tokens are remembered per route. */
export const CACHE_MAX_ENTRIES = 32;

/**
 * Admitted tokens by the hex SHA-256 of the token. An entry is a miss (and is deleted) once
 * `now >= expiry`. When full, expired entries are dropped first; if it is still full, the entry that
 * expires soonest goes (not the least recently used one).
 */
export class TokenCache {
  readonly #entries = new Map<string, number>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(now: () => number, ttlMs = CACHE_TTL_MS, max = CACHE_MAX_ENTRIES) {
    this.#now = now;
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  has(key: string): boolean {
    const expiry = this.#entries.get(key);
    if (expiry === undefined) return false;
    if (this.#now() >= expiry) {
      this.#entries.delete(key);
      return false;
    }
    return true;
  }

  add(key: string): void {
    const now = this.#now();
    if (!this.#entries.has(key) && this.#entries.size >= this.#max) {
      for (const [k, expiry] of this.#entries) if (now >= expiry) this.#entries.delete(k);
      if (this.#entries.size >= this.#max) {
        let victim: string | undefined;
        let soonest = Infinity;
        for (const [k, expiry] of this.#entries) {
          if (expiry < soonest) {
            soonest = expiry;
            victim = k;
          }
        }
        if (victim !== undefined) this.#entries.delete(victim);
      }
    }
    this.#entries.set(key, now + this.#ttlMs);
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** The answer an authenticator gives to one request. */
export type AuthDecision =
  | { readonly result: 'ok'; readonly cached: boolean }
  | {
      readonly result: 'unauth' | 'forbidden' | 'error';
      readonly status: 401 | 403 | 503;
      readonly message: string;
      readonly detail?: string;
    };

export const UNAUTHORIZED = 'unauthorized';
export const FORBIDDEN = 'forbidden';
export const REVIEW_UNAVAILABLE = 'token review unavailable';

/**
 * Extracts the bearer token of an `Authorization` header value: split at the first space, scheme
 * `Bearer` in any case, remainder trimmed and non-empty. Anything else yields undefined.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const space = header.indexOf(' ');
  if (space < 0) return undefined;
  if (header.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  const token = header.slice(space + 1).trim();
  return token === '' ? undefined : token;
}

export interface AuthenticatorOptions {
  /** Audience the TokenReview asks for. */
  readonly audience: string;
  /** The one username admitted, e.g. `system:serviceaccount:<ns>:<name>`. */
  readonly allowedUsername: string;
  /** Client configuration the TokenReviews are sent with. */
  readonly kubeConfig: KubeConfig;
  /** A review taking longer than this counts as an API error (503). */
  readonly reviewTimeoutMs: number;
  /** Clock of the cache. */
  readonly now: () => number;
  /** When true, no review is sent and every cache miss is answered as an API error. */
  readonly reviewDown: () => boolean;
}

/** One route's authenticator. */
export class RouteAuthenticator {
  readonly counts: AuthCounts = { ok: 0, unauth: 0, forbidden: 0, error: 0, tokenReviews: 0 };
  readonly cache: TokenCache;
  readonly #opts: AuthenticatorOptions;
  readonly #api: AuthenticationV1Api;

  constructor(opts: AuthenticatorOptions) {
    this.#opts = opts;
    this.cache = new TokenCache(opts.now);
    this.#api = opts.kubeConfig.makeApiClient(AuthenticationV1Api);
  }

  async authenticate(authorization: string | undefined): Promise<AuthDecision> {
    const decision = await this.#decide(authorization);
    this.counts[decision.result]++;
    return decision;
  }

  async #decide(authorization: string | undefined): Promise<AuthDecision> {
    const token = bearerToken(authorization);
    if (token === undefined) return { result: 'unauth', status: 401, message: UNAUTHORIZED, detail: 'no bearer token' };
    const key = createHash('sha256').update(token).digest('hex');
    if (this.cache.has(key)) return { result: 'ok', cached: true };

    let review: V1TokenReview | undefined;
    try {
      review = await this.#review(token);
    } catch (err) {
      return { result: 'error', status: 503, message: REVIEW_UNAVAILABLE, detail: errorText(err) };
    }
    if (review?.status === undefined) {
      return { result: 'error', status: 503, message: REVIEW_UNAVAILABLE, detail: 'empty TokenReview response' };
    }
    if (review.status.authenticated !== true) {
      return { result: 'unauth', status: 401, message: UNAUTHORIZED, detail: review.status.error ?? 'not authenticated' };
    }
    const username = review.status.user?.username ?? '';
    if (username !== this.#opts.allowedUsername) {
      return { result: 'forbidden', status: 403, message: FORBIDDEN, detail: `user ${JSON.stringify(username)} is not allowed` };
    }
    this.cache.add(key);
    return { result: 'ok', cached: false };
  }

  async #review(token: string): Promise<V1TokenReview | undefined> {
    if (this.#opts.reviewDown()) throw new Error('token review forced down by fault switch');
    this.counts.tokenReviews++;
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new Error(`TokenReview timed out after ${this.#opts.reviewTimeoutMs} ms`)),
      this.#opts.reviewTimeoutMs,
    );
    try {
      const call = this.#api.createTokenReview(
        { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: [this.#opts.audience] } } },
        {
          middleware: [
            {
              pre: (ctx) => {
                ctx.setSignal(abort.signal);
                return new Observable(Promise.resolve(ctx));
              },
              post: (res) => new Observable(Promise.resolve(res)),
            },
          ],
          middlewareMergeStrategy: 'append',
        },
      );
      // The signal normally ends the request; this race is the backstop should a transport ignore it.
      const timedOut = new Promise<never>((_, reject) => {
        abort.signal.addEventListener('abort', () => reject(abort.signal.reason as Error), { once: true });
      });
      return await Promise.race([call, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** One line for the server log: the API status and its message, or the transport error. */
function errorText(err: unknown): string {
  if (err instanceof ApiException) {
    let message = '';
    try {
      const body: unknown = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
      const m = (body as { message?: unknown } | null)?.message;
      if (typeof m === 'string') message = m;
    } catch {
      // not a Status object
    }
    return `HTTP ${err.code}: ${message || 'API error'}`;
  }
  return describeError(err);
}
