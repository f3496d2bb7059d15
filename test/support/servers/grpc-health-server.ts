// A loopback grpc-js server implementing grpc.health.v1.Health/Check with a switchable answer.
// The messages are encoded here by hand, independently of the probe's codec, so a bug in one does
// not hide behind the same bug in the other.
import type { status } from '@grpc/grpc-js';
import { Server, ServerCredentials, type ServiceDefinition, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';

/** Wire values of grpc.health.v1.HealthCheckResponse.ServingStatus. */
const SERVING_STATUS = { UNKNOWN: 0, SERVING: 1, NOT_SERVING: 2, SERVICE_UNKNOWN: 3 } as const;

export type HealthMode =
  | keyof typeof SERVING_STATUS
  /** The health service is not registered at all: the server answers Unimplemented. */
  | 'unimplemented'
  /** The call is accepted and never answered. */
  | 'hang'
  /** Answer with these exact response bytes. */
  | { readonly raw: Uint8Array }
  /** Fail the call with this gRPC status. */
  | { readonly error: status; readonly details: string };

export interface TestGrpcHealthServer {
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly target: string;
  /** The `service` field of every Check received. */
  readonly services: string[];
  readonly setMode: (mode: HealthMode) => void;
  /** Shuts down at once, cutting hanging calls. */
  readonly close: () => Promise<void>;
}

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** Decodes HealthCheckRequest.service (field 1, length-delimited); other fields are ignored. */
function decodeRequest(buf: Buffer): string {
  let pos = 0;
  let service = '';
  const readVarint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = buf[pos++];
      if (b === undefined) throw new Error('truncated');
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0) return result;
    }
  };
  while (pos < buf.length) {
    const key = readVarint();
    const wire = key & 7;
    if (wire === 2) {
      const len = readVarint();
      const bytes = buf.subarray(pos, pos + len);
      pos += len;
      if (key >>> 3 === 1) service = bytes.toString('utf8');
    } else if (wire === 0) readVarint();
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return service;
}

function encodeStatus(value: number): Buffer {
  return value === 0 ? Buffer.alloc(0) : Buffer.from([0x08, ...varint(value)]);
}

/** Starts the server on `host` (default 127.0.0.1) with an ephemeral port. */
export async function startGrpcHealthServer(initial: HealthMode = 'SERVING', host = '127.0.0.1'): Promise<TestGrpcHealthServer> {
  let mode: HealthMode = initial;
  const services: string[] = [];

  const definition: ServiceDefinition = {
    Check: {
      path: '/grpc.health.v1.Health/Check',
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: Buffer) => value,
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: (value: Buffer) => value,
      responseDeserialize: (bytes: Buffer) => bytes,
    },
  };
  const check = (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void => {
    services.push(decodeRequest(call.request));
    const m = mode;
    if (m === 'hang' || m === 'unimplemented') return;
    if (typeof m === 'string') callback(null, encodeStatus(SERVING_STATUS[m]));
    else if ('raw' in m) callback(null, Buffer.from(m.raw));
    else callback({ code: m.error, details: m.details });
  };

  const server = new Server();
  let registered = false;
  const register = (want: boolean): void => {
    if (want && !registered) server.addService(definition, { Check: check });
    if (!want && registered) server.removeService(definition);
    registered = want;
  };
  register(initial !== 'unimplemented');

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:0`, ServerCredentials.createInsecure(), (err, p) => (err === null ? resolve(p) : reject(err)));
  });
  return {
    port,
    target: `${host}:${port}`,
    services,
    setMode: (next) => {
      mode = next;
      register(next !== 'unimplemented');
    },
    close: () => {
      server.forceShutdown();
      return Promise.resolve();
    },
  };
}
