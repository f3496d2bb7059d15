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

/** Connects to `endpoint` over TCP and closes the connection at once. Never throws. */
export async function dialTcp(endpoint: string, opts: DialOptions): Promise<DialResult> {
  const address = dialAddress(endpoint);
  const split = splitHostPort(address);
  if (!split.ok) return { ok: false, error: `dial tcp: ${split.error}` };
  const port = parsePort(split.port);
  if (typeof port === 'string') return { ok: false, error: `dial tcp ${address}: ${port}` };
  // An empty host means this machine, as with Go's dialer.
  const host = split.host === '' ? 'localhost' : split.host;

  const budget = startBudget(opts.deadlineMs, opts.signal);
  if (budget.signal.aborted) {
    budget.dispose();
    return { ok: false, error: `dial tcp ${address}: ${budget.reason() ?? 'cancelled'}` };
  }

  return new Promise<DialResult>((resolve) => {
    let socket: Socket | undefined;
    let settled = false;
    const finish = (result: DialResult): void => {
      if (settled) return;
      settled = true;
      budget.signal.removeEventListener('abort', onAbort);
      budget.dispose();
      socket?.destroy();
      resolve(result);
    };
    const onAbort = (): void => finish({ ok: false, error: `dial tcp ${address}: ${budget.reason() ?? 'cancelled'}` });

    budget.signal.addEventListener('abort', onAbort, { once: true });
    try {
      socket = connect({ host, port });
    } catch (err) {
      finish({ ok: false, error: `dial tcp ${address}: ${describeError(err)}` });
      return;
    }
    socket.once('connect', () => finish({ ok: true }));
    socket.on('error', (err) => finish({ ok: false, error: `dial tcp ${address}: ${describeError(err)}` }));
    socket.once('close', () => finish({ ok: false, error: `dial tcp ${address}: connection closed before it was established` }));
  });
}
