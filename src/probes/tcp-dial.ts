/**
 * TCP reachability of a CacheBackend's published endpoint (docs/upstream.md §6): one connect, closed
 * again as soon as it succeeds. Nothing is sent.
 *
 * @module
 */

import { connect, type Socket } from 'node:net';
import { startBudget } from './deadline.ts';
import { describeError } from '../text/errors.ts';
import { splitHostPort } from '../go/hostport.ts';
import type { DialResult } from './results.ts';

export interface DialOptions {
  /** This dial's own time budget. */
  readonly deadlineMs: number;
  /** The run-wide signal; aborting it ends the dial early. */
  readonly signal?: AbortSignal;
}

/**
 * The address that is dialled for an endpoint: one leading `http://` or `https://` is removed
 * (case-sensitive, in that order); nothing else is touched.
 */
export function dialAddress(endpoint: string): string {
  if (endpoint.startsWith('http://')) return endpoint.slice('http://'.length);
  if (endpoint.startsWith('https://')) return endpoint.slice('https://'.length);
  return endpoint;
}

/** Parses a port the way a dial needs it: decimal digits in 1–65535. */
function parsePort(port: string): number | string {
  if (port === '') return 'empty port';
  if (!/^[0-9]+$/.test(port)) return `port ${JSON.stringify(port)} is not a number`;
  const n = Number(port);
  if (n > 65535) return `port ${port} is out of range`;
  if (n === 0) return 'port 0 cannot be dialled';
  return n;
}

/** Where a published endpoint is dialled: the address as shown in errors, and its host and port. */
export type DialTarget =
  | { readonly ok: true; readonly address: string; readonly host: string; readonly port: number }
  | { readonly ok: false; readonly error: string };

/** Works out what dialling `endpoint` connects to, or why it cannot be dialled. */
export function dialTarget(endpoint: string): DialTarget {
  const address = dialAddress(endpoint);
  const split = splitHostPort(address);
  if (!split.ok) return { ok: false, error: `dial tcp: ${split.error}` };
  const port = parsePort(split.port);
  if (typeof port === 'string') return { ok: false, error: `dial tcp ${address}: ${port}` };
  // An empty host means this machine, as with Go's dialer.
  return { ok: true, address, host: split.host === '' ? 'localhost' : split.host, port };
}

/**
 * One TCP connection attempt, closed again as soon as it is established. A failure says how it ended:
 * the socket's error (with its errno code, e.g. `ECONNREFUSED`), the try's own time running out, the
 * overall signal, or the peer closing first.
 */
export type ConnectOutcome =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** One line, without the `dial tcp address:` prefix. */
      readonly error: string;
      readonly ended: 'error' | 'timeout' | 'aborted' | 'closed';
      /** The errno code of a socket error (every inner one agreeing, when several addresses were tried). */
      readonly code?: string;
    };

/** The errno code of a connect error; for several addresses tried at once, theirs when they all agree. */
function errnoCode(err: unknown): string | undefined {
  if (err instanceof AggregateError) {
    const codes = new Set(err.errors.map(errnoCode));
    return codes.size === 1 ? [...codes][0] : undefined;
  }
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Connects to `host:port` once within `opts.deadlineMs`. Never throws. */
export async function connectOnce(host: string, port: number, opts: DialOptions): Promise<ConnectOutcome> {
  const budget = startBudget(opts.deadlineMs, opts.signal);
  const ended = (): 'timeout' | 'aborted' => (budget.endedBy() === 'timeout' ? 'timeout' : 'aborted');
  if (budget.signal.aborted) {
    budget.dispose();
    return { ok: false, error: budget.reason() ?? 'cancelled', ended: ended() };
  }

  return new Promise<ConnectOutcome>((resolve) => {
    let socket: Socket | undefined;
    let settled = false;
    const finish = (result: ConnectOutcome): void => {
      if (settled) return;
      settled = true;
      budget.signal.removeEventListener('abort', onAbort);
      budget.dispose();
      socket?.destroy();
      resolve(result);
    };
    const failed = (err: unknown): void => {
      const code = errnoCode(err);
      finish({ ok: false, error: describeError(err), ended: 'error', ...(code === undefined ? {} : { code }) });
    };
    const onAbort = (): void => finish({ ok: false, error: budget.reason() ?? 'cancelled', ended: ended() });

    budget.signal.addEventListener('abort', onAbort, { once: true });
    try {
      socket = connect({ host, port });
    } catch (err) {
      failed(err);
      return;
    }
    socket.once('connect', () => finish({ ok: true }));
    socket.on('error', failed);
    socket.once('close', () => finish({ ok: false, error: 'connection closed before it was established', ended: 'closed' }));
  });
}

/** Connects to `endpoint` over TCP and closes the connection at once. Never throws. */
export async function dialTcp(endpoint: string, opts: DialOptions): Promise<DialResult> {
  const target = dialTarget(endpoint);
  if (!target.ok) return target;
  const outcome = await connectOnce(target.host, target.port, opts);
  return outcome.ok ? outcome : { ok: false, error: `dial tcp ${target.address}: ${outcome.error}` };
}
