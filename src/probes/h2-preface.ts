/**
 * Whether a port speaks HTTP/2 in plaintext: the client preface and an empty SETTINGS frame are sent,
 * and a plaintext HTTP/2 server answers with a frame on stream 0 (its SETTINGS, or a GOAWAY). A TLS
 * port answers with an alert or closes; anything else is not HTTP/2 either way.
 *
 * @module
 */

import { connect } from 'node:net';
import type { ProbeBudget } from './deadline.ts';

/** The HTTP/2 client connection preface (RFC 9113 §3.4) followed by an empty SETTINGS frame. */
export const HTTP2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 0x04, 0, 0, 0, 0, 0]),
]);

const FRAME_HEADER_LENGTH = 9;
const SETTINGS = 0x04;
const GOAWAY = 0x07;

/** Whether `head` (at least 9 bytes) starts with an HTTP/2 SETTINGS or GOAWAY frame on stream 0. */
export function startsWithHttp2Frame(head: Buffer): boolean {
  if (head.length < FRAME_HEADER_LENGTH) return false;
  const type = head[3];
  const stream = head.readUInt32BE(5) & 0x7fffffff;
  return (type === SETTINGS || type === GOAWAY) && stream === 0;
}

/** Sends the preface and reports whether the answer is plaintext HTTP/2. Never throws. */
export function answersPlaintextHttp2(host: string, port: number, budget: ProbeBudget): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (budget.signal.aborted) {
      resolve(false);
      return;
    }
    let received = Buffer.alloc(0);
    let settled = false;
    const socket = connect({ host, port });
    const finish = (answer: boolean): void => {
      if (settled) return;
      settled = true;
      budget.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(answer);
    };
    const onAbort = (): void => finish(false);
    budget.signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => socket.write(HTTP2_PREFACE));
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= FRAME_HEADER_LENGTH) finish(startsWithHttp2Frame(received));
    });
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
  });
}
