/**
 * One TLS handshake with the server's gRPC port, made to learn what it speaks and what it presents,
 * not to trust it: verification is off for the handshake, and the certificate is judged afterwards
 * from what it showed. grpc-js reports all of this as one "failed to connect", which tells an
 * operator nothing about which of certificate, name, dates, protocol or client certificate is wrong.
 *
 * After the handshake the probe sends the HTTP/2 preface and waits for the server's first bytes:
 * under TLS 1.3 a server that requires a client certificate says so only then, with an alert.
 *
 * @module
 */

import { isIP } from 'node:net';
import * as tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { ProbeBudget } from './deadline.ts';
import { HTTP2_PREFACE } from './h2-preface.ts';
import { describeError } from '../text/errors.ts';

/** What the handshake showed. */
export type HandshakeOutcome =
  | {
      readonly kind: 'tls';
      /** The certificates the server presented (as OpenSSL built the chain), leaf first. */
      readonly chain: readonly X509Certificate[];
      /** OpenSSL's verdict against the CA given (or the system roots): an error code, or undefined. */
      readonly authorizationError?: string;
      /** Whether the server went on to speak after the handshake, or ended the session. */
      readonly session: { readonly kind: 'accepted' } | { readonly kind: 'refused'; readonly error: string; readonly code: string };
    }
  /** The server sent a TLS alert before its certificate could be read. */
  | { readonly kind: 'tls-alert'; readonly error: string; readonly code: string }
  /** The peer answered, but not with TLS. */
  | { readonly kind: 'not-tls'; readonly error: string }
  /** No connection: refused, unresolvable, or no answer within the budget. */
  | { readonly kind: 'unreachable'; readonly error: string };

/** The TLS material of a handshake; buffers as read from the files the flags name. */
export interface HandshakeOptions {
  readonly host: string;
  readonly port: number;
  /** The name sent as SNI (never an IP address, which SNI cannot carry). */
  readonly serverName: string;
  /** The CA bundle OpenSSL's verdict is taken against; absent means the system roots. */
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly budget: ProbeBudget;
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** The peer's chain, leaf first, following the issuer links Node gives until they loop. */
function peerChain(socket: tls.TLSSocket): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  // An empty object stands for "no certificate", and the last issuer link points at itself.
  let cert: Partial<tls.DetailedPeerCertificate> | undefined = socket.getPeerCertificate(true);
  while (cert?.raw !== undefined && cert.fingerprint256 !== undefined && !seen.has(cert.fingerprint256) && chain.length < 16) {
    seen.add(cert.fingerprint256);
    chain.push(new X509Certificate(cert.raw));
    cert = cert.issuerCertificate;
  }
  return chain;
}

/** Performs the handshake under the budget. Never throws; the socket is always destroyed. */
export function tlsHandshake(opts: HandshakeOptions): Promise<HandshakeOutcome> {
  return new Promise<HandshakeOutcome>((resolve) => {
    if (opts.budget.signal.aborted) {
      resolve({ kind: 'unreachable', error: opts.budget.reason() ?? 'cancelled' });
      return;
    }
    let connected = false;
    let secure = false;
    let settled = false;
    let chain: X509Certificate[] = [];
    let authorizationError: string | undefined;

    const socket = tls.connect({
      host: opts.host,
      port: opts.port,
      ...(isIP(opts.serverName) === 0 ? { servername: opts.serverName } : {}),
      ...(opts.ca === undefined ? {} : { ca: opts.ca }),
      ...(opts.cert === undefined ? {} : { cert: opts.cert }),
      ...(opts.key === undefined ? {} : { key: opts.key }),
      rejectUnauthorized: false,
      ALPNProtocols: ['h2'],
    });

    const finish = (outcome: HandshakeOutcome): void => {
      if (settled) return;
      settled = true;
      opts.budget.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(outcome);
    };
    const tlsOutcome = (session: Extract<HandshakeOutcome, { kind: 'tls' }>['session']): HandshakeOutcome => ({
      kind: 'tls',
      chain,
      ...(authorizationError === undefined ? {} : { authorizationError }),
      session,
    });
    const onAbort = (): void => {
      const why = opts.budget.reason() ?? 'cancelled';
      // Silence after a finished handshake is not a refusal: the health call will say what it is.
      finish(secure ? tlsOutcome({ kind: 'accepted' }) : { kind: 'unreachable', error: why });
    };
    opts.budget.signal.addEventListener('abort', onAbort, { once: true });

    socket.once('connect', () => {
      connected = true;
    });
    socket.once('secureConnect', () => {
      secure = true;
      try {
        chain = peerChain(socket);
      } catch (err) {
        finish({ kind: 'tls-alert', error: `the certificate the server presented cannot be read: ${describeError(err)}`, code: '' });
        return;
      }
      const verdict: unknown = socket.authorizationError;
      if (verdict !== null && verdict !== undefined) authorizationError = describeError(verdict);
      socket.write(HTTP2_PREFACE);
    });
    socket.once('data', () => finish(tlsOutcome({ kind: 'accepted' })));
    socket.on('error', (err: unknown) => {
      const error = describeError(err);
      const code = errorCode(err);
      if (secure) finish(tlsOutcome({ kind: 'refused', error, code }));
      else if (!connected) finish({ kind: 'unreachable', error });
      else if (/NO_APPLICATION_PROTOCOL/.test(code))
        finish({ kind: 'tls-alert', error: `the port speaks TLS but not HTTP/2 (it refused ALPN h2, which gRPC needs): ${error}`, code });
      else if (/ALERT/.test(code)) finish({ kind: 'tls-alert', error, code });
      else finish({ kind: 'not-tls', error });
    });
    socket.once('close', () => {
      if (secure) finish(tlsOutcome({ kind: 'refused', error: 'the server closed the connection after the TLS handshake', code: '' }));
      else if (connected) finish({ kind: 'not-tls', error: 'the peer closed the connection during the TLS handshake' });
      else finish({ kind: 'unreachable', error: 'the connection closed before it was established' });
    });
  });
}
