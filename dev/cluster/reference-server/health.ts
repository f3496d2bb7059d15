/**
 * The reference server's gRPC listener: the standard `grpc.health.v1.Health` service with a
 * switchable status for service `""` (docs/upstream.md §5, R-5.4). `Watch` is declared but not
 * implemented (grpc-js answers UNIMPLEMENTED for it). Plaintext by default; with {@link GrpcTls} it
 * serves TLS only, optionally requiring client certificates, as the upstream server does when given
 * `--tls-cert-file` and `--tls-key-file`.
 *
 * Test support only; never shipped.
 *
 * @module
 */

import {
  Server,
  ServerCredentials,
  status as GrpcCode,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { decodeMessage } from '../../../src/protobuf/decode.ts';
import { HEALTH_CHECK_PATH, HEALTH_CHECK_REQUEST, encodeHealthCheckResponse } from '../../../src/probes/grpc-health.ts';

/**
 * What Health/Check answers for service "": one of the four serving statuses, `unimplemented` (the
 * health service is not registered at all) or `hang` (the call is accepted and never answered).
 */
export type HealthMode = 'SERVING' | 'NOT_SERVING' | 'UNKNOWN' | 'SERVICE_UNKNOWN' | 'unimplemented' | 'hang';

export const HEALTH_MODES: readonly HealthMode[] = ['SERVING', 'NOT_SERVING', 'UNKNOWN', 'SERVICE_UNKNOWN', 'unimplemented', 'hang'];

const STATUS_VALUE: Readonly<Record<string, number>> = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 };

/**
 * The `service` field of a `HealthCheckRequest { string service = 1; }`, read by the doctor's own
 * protobuf reader; other fields are skipped. Throws on malformed input.
 */
export function decodeHealthCheckRequest(buf: Uint8Array): string {
  const { service } = decodeMessage(HEALTH_CHECK_REQUEST, buf);
  return typeof service === 'string' ? service : '';
}

const identity = (b: Buffer): Buffer => b;

/** grpc.health.v1.Health with raw-bytes codecs; the handler decodes and encodes itself. */
const HEALTH_SERVICE: ServiceDefinition = {
  Check: {
    path: HEALTH_CHECK_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
    originalName: 'check',
  },
  Watch: {
    path: '/grpc.health.v1.Health/Watch',
    requestStream: false,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
    originalName: 'watch',
  },
};

export interface HealthServer {
  readonly port: number;
  setMode(mode: HealthMode): void;
  /** Number of Check calls received while the service was registered. */
  readonly checks: number;
  stop(): Promise<void>;
}

/**
 * TLS material of the gRPC listener, as PEM text. With it the port speaks TLS only (no plaintext
 * fallback), so a client that dials it without TLS, or with the wrong trust, fails like it would
 * against an upstream server started with `--tls-cert-file`.
 */
export interface GrpcTls {
  /** The serving certificate, then any intermediates: the chain sent to clients. */
  readonly certChainPem: string;
  readonly keyPem: string;
  /** When set, every client must present a certificate issued by one of these CAs (mTLS). */
  readonly clientCaPem?: string;
}

function serverCredentials(tls: GrpcTls | undefined): ServerCredentials {
  if (tls === undefined) return ServerCredentials.createInsecure();
  const pair = { cert_chain: Buffer.from(tls.certChainPem), private_key: Buffer.from(tls.keyPem) };
  if (tls.clientCaPem === undefined) return ServerCredentials.createSsl(null, [pair], false);
  return ServerCredentials.createSsl(Buffer.from(tls.clientCaPem), [pair], true);
}

/** Starts the gRPC listener on `host:port` (0 picks a free port): plaintext, or TLS when `tls` is given. */
export async function startHealthServer(host: string, port: number, initial: HealthMode, tls?: GrpcTls): Promise<HealthServer> {
  const credentials = serverCredentials(tls);
  const server = new Server();
  let mode: HealthMode = initial;
  let registered = false;
  let checks = 0;

  const check = (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
    checks++;
    let service: string;
    try {
      service = decodeHealthCheckRequest(call.request);
    } catch (err) {
      callback({ code: GrpcCode.INTERNAL, details: `grpc: error unmarshalling request: ${(err as Error).message}` });
      return;
    }
    if (service !== '') {
      callback({ code: GrpcCode.NOT_FOUND, details: 'unknown service' });
      return;
    }
    if (mode === 'hang') return; // never answered; the client's deadline or stop() ends it
    callback(null, encodeHealthCheckResponse(STATUS_VALUE[mode] ?? 0));
  };

  const sync = (): void => {
    const want = mode !== 'unimplemented';
    if (want && !registered) server.addService(HEALTH_SERVICE, { check });
    if (!want && registered) server.removeService(HEALTH_SERVICE);
    registered = want;
  };
  sync();

  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, credentials, (err, p) => (err ? reject(err) : resolve(p)));
  });

  return {
    port: bound,
    setMode(next: HealthMode): void {
      mode = next;
      sync();
    },
    get checks() {
      return checks;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        // Hanging calls would keep a graceful shutdown waiting: give it a moment, then force.
        let done = false;
        const finish = (): void => {
          if (done) return;
          done = true;
          clearTimeout(force);
          resolve();
        };
        const force = setTimeout(() => {
          server.forceShutdown();
          finish();
        }, 200);
        server.tryShutdown(finish);
      }),
  };
}
