/**
 * The gRPC health probe (docs/upstream.md §5): one unary call of `grpc.health.v1.Health/Check` with
 * service `""`, under this probe's own deadline, in plaintext as upstream or over TLS when the port
 * speaks it (`server-transport.ts` decides which).
 *
 * The two messages involved are tiny, so they are encoded by hand instead of loading a .proto file
 * (the bundle reads nothing from disk but its own chunks):
 *
 *     message HealthCheckRequest  { string service = 1; }
 *     message HealthCheckResponse { ServingStatus status = 1; }   // UNKNOWN 0, SERVING 1, NOT_SERVING 2, SERVICE_UNKNOWN 3
 *
 * @module
 */

import { isIP } from 'node:net';
import * as tls from 'node:tls';
import {
  CallCredentials,
  ChannelCredentials,
  Client,
  credentials,
  Metadata,
  status as GrpcCode,
  type ClientUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { decodeMessage } from '../protobuf/decode.ts';
import { message } from '../protobuf/schema.ts';
import { writeMessage } from '../protobuf/writer.ts';
import { startBudget, timeoutMessage } from './deadline.ts';
import { describeError, oneLine } from '../text/errors.ts';
import { splitHostPort, joinHostPort } from '../go/hostport.ts';
import type { GrpcHealthResult, HealthStatus } from './results.ts';

/** Full method path of the health check. */
export const HEALTH_CHECK_PATH = '/grpc.health.v1.Health/Check';

/** The serving statuses by their wire value. */
const STATUS_BY_VALUE: Readonly<Record<number, HealthStatus>> = {
  0: 'UNKNOWN',
  1: 'SERVING',
  2: 'NOT_SERVING',
  3: 'SERVICE_UNKNOWN',
};

/** gRPC status codes by the names Go gives them in `rpc error: code = <Name>`. */
const GO_CODE_NAMES: Readonly<Record<number, string>> = {
  0: 'OK',
  1: 'Canceled',
  2: 'Unknown',
  3: 'InvalidArgument',
  4: 'DeadlineExceeded',
  5: 'NotFound',
  6: 'AlreadyExists',
  7: 'PermissionDenied',
  8: 'ResourceExhausted',
  9: 'FailedPrecondition',
  10: 'Aborted',
  11: 'OutOfRange',
  12: 'Unimplemented',
  13: 'Internal',
  14: 'Unavailable',
  15: 'DataLoss',
  16: 'Unauthenticated',
};

/** The Go name of a gRPC status code; an unknown number prints as `Code(n)`, like Go. */
export function grpcCodeName(code: number): string {
  return GO_CODE_NAMES[code] ?? `Code(${code})`;
}

/** grpc-js details carry timestamps and an often empty "Resolution note:" tail; drop both. */
function tidyDetails(details: string): string {
  return details
    .replace(/\s*\(\d{4}-\d\d-\d\dT[\d:.]+Z\)/g, '')
    .replace(/\.?\s*Resolution note:\s*$/, '')
    .trim();
}

/**
 * Whether a health call failed for want of a connection (Unavailable): what a port of another
 * protocol (TLS, garbage) or a refused one produces, as opposed to a deadline or an answer.
 */
export function isUnavailable(result: GrpcHealthResult): boolean {
  return result.kind === 'error' && result.error.startsWith(`rpc error: code = ${grpcCodeName(GrpcCode.UNAVAILABLE)} `);
}

/** An RPC failure in the form Go prints it. */
export function rpcErrorText(code: number, details: string): string {
  return oneLine(`rpc error: code = ${grpcCodeName(code)} desc = ${tidyDetails(details)}`);
}

// ---- the two health messages -------------------------------------------------------------------

/** `grpc.health.v1.HealthCheckRequest`: the service asked about ("" for the server as a whole). */
export const HEALTH_CHECK_REQUEST = message('grpc.health.v1.HealthCheckRequest', { service: { number: 1, type: 'string' } });

/** `grpc.health.v1.HealthCheckResponse`: the serving status, an enum. */
export const HEALTH_CHECK_RESPONSE = message('grpc.health.v1.HealthCheckResponse', { status: { number: 1, type: 'enum' } });

/** `HealthCheckRequest { service }`; an empty service encodes to zero bytes (proto3 default). */
export function encodeHealthCheckRequest(service: string): Buffer {
  return service === '' ? Buffer.alloc(0) : writeMessage([[HEALTH_CHECK_REQUEST.fields.service.number, service]]);
}

/** `HealthCheckResponse { status }`, for test servers. */
export function encodeHealthCheckResponse(statusValue: number): Buffer {
  return statusValue === 0 ? Buffer.alloc(0) : writeMessage([[HEALTH_CHECK_RESPONSE.fields.status.number, statusValue]]);
}

/**
 * The `status` field of a `HealthCheckResponse` (0 when absent), read by the one protobuf reader of
 * the doctor: unknown fields are skipped, the last occurrence of the field wins, an enum is the low 32
 * bits of its varint, signed. Throws on malformed input.
 */
export function decodeHealthCheckResponse(buf: Uint8Array): number {
  const { status } = decodeMessage(HEALTH_CHECK_RESPONSE, buf);
  return typeof status === 'number' ? status : 0;
}

/**
 * The health status of a wire value. A value outside the enum (which Go would print as a number)
 * counts as UNKNOWN: it is not SERVING either way.
 */
function healthStatusOf(value: number): HealthStatus {
  return STATUS_BY_VALUE[value] ?? 'UNKNOWN';
}

// ---- the probe ---------------------------------------------------------------------------------

/** The TLS side of a health call; the certificate and its name are verified unless `skipVerify`. */
export interface GrpcTls {
  /** The CA bundle; absent means the system roots. */
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** The name the certificate must carry when it is not the host of the target. */
  readonly serverName?: string;
  readonly skipVerify: boolean;
}

export interface GrpcHealthOptions {
  /** This probe's own time budget; also the RPC deadline. */
  readonly deadlineMs: number;
  /** The run-wide signal; aborting it cancels the call. */
  readonly signal?: AbortSignal;
  /** Speak TLS; absent means plaintext. */
  readonly tls?: GrpcTls;
}

/** What grpc-js asks of a channel's credentials for each connection it makes. */
type SecureConnector = ReturnType<ChannelCredentials['_createSecureConnector']>;

/**
 * TLS for the health call, as `credentials.createSsl` gives it (the same trust, the same name check,
 * ALPN h2) except for one thing: an IP address is never sent as the TLS server name. grpc-js's own
 * connector always sends the host it dials (or `grpc.ssl_target_name_override`) as the server name,
 * IP addresses included, which SNI cannot carry (RFC 6066) and for which Node prints a deprecation
 * warning on stderr, the log that holds the JSON report in a pod. The certificate is still checked
 * against the name, IP address or not, exactly as grpc-js checks it.
 */
class HealthTlsCredentials extends ChannelCredentials {
  readonly #options: tls.ConnectionOptions;

  /** `name` is what the certificate must carry: `--server-name`, or else the host dialled. */
  constructor(material: GrpcTls, name: string) {
    super();
    // Made here, as createSsl makes it, so that unusable material fails the setup of the client.
    const secureContext = tls.createSecureContext({
      ...(material.ca === undefined ? {} : { ca: material.ca }),
      ...(material.cert === undefined ? {} : { cert: material.cert }),
      ...(material.key === undefined ? {} : { key: material.key }),
    });
    this.#options = {
      secureContext,
      ALPNProtocols: ['h2'],
      ...(isIP(name) === 0 ? { servername: name } : {}),
      ...(material.skipVerify
        ? { rejectUnauthorized: false, checkServerIdentity: () => undefined }
        : { checkServerIdentity: (_host: string, cert: tls.PeerCertificate) => tls.checkServerIdentity(name, cert) }),
    };
  }

  override _isSecure(): boolean {
    return true;
  }

  override _equals(other: ChannelCredentials): boolean {
    return other === this;
  }

  override _createSecureConnector(): SecureConnector {
    const options = this.#options;
    return {
      connect: (socket) =>
        new Promise((resolve, reject) => {
          const secured = tls.connect({ ...options, socket }, () => {
            // Node has normally ended a connection it could not verify already; as in grpc-js, an
            // unverified one is refused here too, whatever NODE_TLS_REJECT_UNAUTHORIZED says.
            if (options.rejectUnauthorized !== false && !secured.authorized) {
              reject(secured.authorizationError);
              return;
            }
            resolve({ socket: secured, secure: true });
          });
          secured.on('error', reject);
        }),
      waitForReady: () => Promise.resolve(),
      getCallCredentials: () => CallCredentials.createEmpty(),
      destroy: () => undefined,
    };
  }
}

/** The host of a target as grpc-js takes it from `host:port`: the name a certificate must carry by default. */
function hostOf(target: string): string {
  const split = splitHostPort(target);
  return split.ok ? split.host : target;
}

function channelCredentials(target: string, material: GrpcTls | undefined): ChannelCredentials {
  if (material === undefined) return credentials.createInsecure();
  return new HealthTlsCredentials(material, material.serverName ?? hostOf(target));
}

/** Channel options: a private subchannel pool (so closing the client really lets go of the
 * connection) and no DNS TXT lookups for a service config. */
const CHANNEL_OPTIONS = {
  'grpc.use_local_subchannel_pool': 1,
  'grpc.service_config_disable_resolution': 1,
} as const;

/**
 * The target handed to grpc-js. As with Go's resolver, an empty host (`:9090`) means this machine;
 * grpc-js would otherwise try to resolve "" and wait for the whole deadline.
 */
function normaliseTarget(target: string): string {
  const split = splitHostPort(target);
  if (split.ok && split.host === '' && split.port !== '') return joinHostPort('localhost', split.port);
  return target;
}

/**
 * Calls `grpc.health.v1.Health/Check` with service `""` on `target` over HTTP/2, plaintext unless
 * `opts.tls`. Never throws; the client is always closed before this resolves.
 */
export async function checkGrpcHealth(target: string, opts: GrpcHealthOptions): Promise<GrpcHealthResult> {
  const budget = startBudget(opts.deadlineMs, opts.signal);
  if (budget.signal.aborted) {
    budget.dispose();
    return { kind: 'error', error: rpcErrorText(GrpcCode.CANCELLED, budget.reason() ?? 'cancelled') };
  }

  let client: Client;
  try {
    const dialled = normaliseTarget(target);
    client = new Client(dialled, channelCredentials(dialled, opts.tls), CHANNEL_OPTIONS);
  } catch (err) {
    budget.dispose();
    return { kind: 'error', error: oneLine(`cannot set up a gRPC client for ${JSON.stringify(target)}: ${describeError(err)}`) };
  }

  return new Promise<GrpcHealthResult>((resolve) => {
    let call: ClientUnaryCall | undefined;
    let settled = false;
    const finish = (result: GrpcHealthResult): void => {
      if (settled) return;
      settled = true;
      budget.signal.removeEventListener('abort', onAbort);
      budget.dispose();
      try {
        client.close();
      } catch {
        // Closing is best effort; the result is what matters.
      }
      resolve(result);
    };
    const budgetError = (): GrpcHealthResult => {
      const why = budget.reason() ?? 'cancelled';
      const code = budget.endedBy() === 'timeout' ? GrpcCode.DEADLINE_EXCEEDED : GrpcCode.CANCELLED;
      return { kind: 'error', error: rpcErrorText(code, why) };
    };
    // The RPC deadline below normally fires first; this is the backstop, and the way the overall
    // signal cancels the call.
    const onAbort = (): void => {
      call?.cancel();
      finish(budgetError());
    };
    budget.signal.addEventListener('abort', onAbort, { once: true });

    try {
      call = client.makeUnaryRequest<null, number>(
        HEALTH_CHECK_PATH,
        () => encodeHealthCheckRequest(''),
        (bytes: Buffer) => decodeHealthCheckResponse(bytes),
        null,
        new Metadata(),
        { deadline: budget.deadline },
        (err: ServiceError | null, value?: number) => {
          if (err !== null) {
            if (budget.signal.aborted && err.code === GrpcCode.CANCELLED) finish(budgetError());
            // The call's deadline is the budget's: whichever timer fires first, the answer is the same.
            else if (err.code === GrpcCode.DEADLINE_EXCEEDED)
              finish({ kind: 'error', error: rpcErrorText(err.code, timeoutMessage(budget.ms)) });
            else finish({ kind: 'error', error: rpcErrorText(err.code, err.details || err.message) });
            return;
          }
          finish({ kind: 'status', status: healthStatusOf(value ?? 0) });
        },
      );
    } catch (err) {
      finish({ kind: 'error', error: rpcErrorText(GrpcCode.INTERNAL, describeError(err)) });
    }
  });
}
