/**
 * The settle window of a fresh pod. A NetworkPolicy enforcer that learns pods from the API server
 * (kube-router, Calico, Cilium) admits a new pod's address only once it has seen the pod, a moment
 * after the container started; until then the pod's connections to a fenced port are refused (an ICMP
 * reject) or go unanswered (a drop). While the doctor's own pod is younger than the window, a probe
 * first waits for its port to accept a TCP connection, retrying such failures with a short back-off;
 * then it probes as it always does, with its whole budget. Past the window, or outside a pod, nothing
 * waits. Measured and explained in docs/real-node.md.
 *
 * @module
 */

import { pause } from './deadline.ts';
import type { SettleFailure, Settling } from './results.ts';
import { connectOnce, type ConnectOutcome } from './tcp-dial.ts';

/**
 * How long after the doctor's container started a refused or unanswered connection may still be the
 * enforcer not having admitted the pod yet. Several times the longest admission measured on the real
 * node (docs/real-node.md, "The settle window").
 */
export const SETTLE_WINDOW_MS = 10_000;

/** How long one connection try may go unanswered before it is tried again (an enforcer that drops). */
export const CONNECT_TRY_MS = 1_000;

/** The pauses between tries: short at first, when admission is most likely, then at most the last. */
export const RETRY_PAUSES_MS: readonly number[] = [100, 200, 400, 800];

/** When the doctor's pod started and when its settle window ends, in epoch milliseconds. */
export interface SettleWindow {
  readonly podStartedMs: number;
  readonly endsMs: number;
}

/** The window of a pod whose container started at `started`. */
export function settleWindowFrom(started: Date): SettleWindow {
  const podStartedMs = started.getTime();
  return { podStartedMs, endsMs: podStartedMs + SETTLE_WINDOW_MS };
}

/** Waits until `host:port` accepts a connection, or says why not; `undefined` when no try failed. */
export type AdmissionGate = (host: string, port: number) => Promise<Settling | undefined>;

/** The failures an enforcer that has not admitted the pod yet causes; any other ends the wait. */
function retried(outcome: Extract<ConnectOutcome, { ok: false }>): SettleFailure | undefined {
  if (outcome.ended === 'timeout') return 'unanswered';
  if (outcome.ended !== 'error') return undefined;
  if (outcome.code === 'ECONNREFUSED') return 'refused';
  if (outcome.code === 'EHOSTUNREACH' || outcome.code === 'ENETUNREACH') return 'unreachable';
  return undefined;
}

/**
 * The gate of one attempt: tries a connection until one is accepted, a failure of another kind
 * occurs, `signal` aborts or the window ends. Reads time from `clock` only.
 */
export function admissionGate(window: SettleWindow, clock: () => Date, signal: AbortSignal): AdmissionGate {
  return async (host, port) => {
    let tries = 0;
    let failure: SettleFailure | undefined;
    const settled = (accepted: boolean): Settling | undefined =>
      failure === undefined ? undefined : { failure, tries, accepted, afterPodStartMs: clock().getTime() - window.podStartedMs };
    for (;;) {
      const left = window.endsMs - clock().getTime();
      if (left <= 0 || signal.aborted) return settled(false);
      const tryMs = Math.min(CONNECT_TRY_MS, left);
      const outcome = await connectOnce(host, port, { deadlineMs: tryMs, signal });
      if (outcome.ok) return settled(true);
      // A try the window's end cut short says nothing of the port: the wait just ended.
      if (outcome.ended === 'timeout' && tryMs < CONNECT_TRY_MS) return settled(false);
      const kind = retried(outcome);
      if (kind === undefined) return settled(false);
      failure = kind;
      tries += 1;
      const wait = RETRY_PAUSES_MS[Math.min(tries, RETRY_PAUSES_MS.length) - 1] ?? 0;
      await pause(Math.min(wait, Math.max(0, window.endsMs - clock().getTime())), signal);
    }
  };
}
