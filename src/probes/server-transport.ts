/**
 * The gRPC side of the server probes: what the port speaks, what it presents, and its health, under
 * one time budget. With `--server-tls auto` a plaintext port costs exactly the upstream health call;
 * only when that call cannot connect does a TLS handshake find out whether the port speaks TLS.
 *
 * @module
 */

import { readOperatorFile } from '../files/operator-file.ts';
import { X509Certificate } from 'node:crypto';
import * as tls from 'node:tls';
import { chainLeadsTo, certificateFacts, parsePemBundle } from './certificate.ts';
import { startBudget, type ProbeBudget } from './deadline.ts';
import { checkGrpcHealth, isUnavailable, type GrpcTls } from './grpc-health.ts';
import { answersPlaintextHttp2 } from './h2-preface.ts';
import { tlsHandshake, type HandshakeOutcome } from './tls-handshake.ts';
import type { CertificateTrust, GrpcHealthResult, ServerTransport, SessionRefusal } from './results.ts';
import { describeError } from '../text/errors.ts';

/** `--server-tls`: detect what the gRPC port speaks, or insist on TLS, or on plaintext. */
export type ServerTlsMode = 'auto' | 'on' | 'off';

/**
 * How the doctor speaks to the server's gRPC port. The upstream server can terminate TLS there (its
 * TLS overlay); a plaintext probe of such a port could only report a protocol error.
 */
export interface ServerTlsOptions {
  readonly mode: ServerTlsMode;
  /** `--server-ca-file`: PEM bundle the server's certificate must lead to; absent means the system roots. */
  readonly caFile?: string;
  /** `--server-name`: the name the certificate must carry; absent means the host dialled. */
  readonly serverName?: string;
  /** `--server-insecure-skip-verify`: accept any certificate (reported, never silent). */
  readonly insecureSkipVerify: boolean;
  /** `--server-cert-file` / `--server-key-file`: a client certificate, for servers that require one. */
  readonly clientCertificate?: { readonly certFile: string; readonly keyFile: string };
}

/** What the gRPC probes found; see `ServerProbes`. */
export interface ServerGrpcResult {
  readonly health?: GrpcHealthResult;
  readonly transport?: ServerTransport;
}

/** Where the gRPC port is, and the name its certificate must carry unless `--server-name` says otherwise. */
export interface GrpcPortAddress {
  /** The target as dialled and reported, e.g. `inference-cache-server.inference-cache-system.svc:9090`. */
  readonly target: string;
  readonly host: string;
  readonly port: number;
}

/** The TLS files as read: a reason instead of the content where one could not be used. */
interface Material {
  readonly ca?: Buffer;
  readonly anchors?: readonly X509Certificate[];
  readonly caError?: string;
  /** The client certificate and its key, named as node:tls and grpc-js options name them. */
  readonly client?: { readonly cert: Buffer; readonly key: Buffer };
  readonly clientError?: string;
}

/** OpenSSL's verdicts that are about validity dates alone; the check judges dates itself. */
const DATE_VERDICTS = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
/** Node's verdict for a certificate that does not carry the name asked for; judged as the name, not the chain. */
const NAME_VERDICT = 'ERR_TLS_CERT_ALTNAME_INVALID';

async function readMaterial(options: ServerTlsOptions, signal: AbortSignal): Promise<Material> {
  const material: { -readonly [K in keyof Material]: Material[K] } = {};
  const caFile = options.caFile;
  if (caFile !== undefined) {
    const read = await readOperatorFile(caFile, 'ca-file', signal);
    const unusable = (why: string) => `the CA file ${caFile} cannot be used: ${why}`;
    if (!read.ok) material.caError = unusable(read.reason);
    else {
      try {
        material.anchors = parsePemBundle(read.bytes.toString('latin1'));
        material.ca = read.bytes;
      } catch (err) {
        material.caError = unusable(describeError(err));
      }
    }
  }
  const client = options.clientCertificate;
  if (client !== undefined) {
    const [cert, key] = await Promise.all([
      readOperatorFile(client.certFile, 'client-certificate', signal),
      readOperatorFile(client.keyFile, 'client-key', signal),
    ]);
    const unusable = (why: string) => `the client certificate ${client.certFile} with key ${client.keyFile} cannot be used: ${why}`;
    if (!cert.ok) material.clientError = unusable(`the certificate: ${cert.reason}`);
    else if (!key.ok) material.clientError = unusable(`the key: ${key.reason}`);
    else {
      try {
        tls.createSecureContext({ cert: cert.bytes, key: key.bytes });
        material.client = { cert: cert.bytes, key: key.bytes };
      } catch (err) {
        material.clientError = unusable(describeError(err));
      }
    }
  }
  return material;
}

function refusalOf(error: string, code: string): SessionRefusal {
  return { error, clientCertificateRequired: /CERTIFICATE_REQUIRED/.test(code) };
}

function trustOf(outcome: Extract<HandshakeOutcome, { kind: 'tls' }>, options: ServerTlsOptions, material: Material): CertificateTrust {
  if (options.insecureSkipVerify) return { kind: 'skipped' };
  if (material.caError !== undefined) return { kind: 'no-ca', detail: material.caError };
  const anchor = options.caFile === undefined ? ({ kind: 'system' } as const) : ({ kind: 'ca-file', path: options.caFile } as const);
  const verdict = outcome.authorizationError;
  // Node checks the name only once the chain verified, and reports a mismatch in the same field.
  if (verdict === undefined || verdict === NAME_VERDICT) return { kind: 'verified', anchor };
  if (DATE_VERDICTS.has(verdict)) {
    const anchors = material.anchors ?? tls.rootCertificates.map((pem) => new X509Certificate(pem));
    if (chainLeadsTo(outcome.chain, anchors)) return { kind: 'verified', anchor };
  }
  return { kind: 'unknown-authority', anchor, detail: verdict };
}

/**
 * Probes the gRPC port as `options` say. Never throws; every failure is in the result, and the
 * whole sequence stays within `deadlineMs`.
 */
export async function probeServerGrpc(
  address: GrpcPortAddress,
  options: ServerTlsOptions,
  budget: { readonly deadlineMs: number; readonly signal?: AbortSignal },
): Promise<ServerGrpcResult> {
  const end = Date.now() + budget.deadlineMs;
  const remaining = () => ({
    deadlineMs: Math.max(0, end - Date.now()),
    ...(budget.signal === undefined ? {} : { signal: budget.signal }),
  });
  /** Runs one raw-socket step under what is left of the budget. */
  const step = async <T>(run: (own: ProbeBudget) => Promise<T>): Promise<T> => {
    const own = startBudget(remaining().deadlineMs, budget.signal);
    try {
      return await run(own);
    } finally {
      own.dispose();
    }
  };
  const serverName = options.serverName ?? address.host;
  // Auto and off start with upstream's plaintext call, on its full budget and before anything else.
  const plaintext = options.mode === 'on' ? undefined : await checkGrpcHealth(address.target, budget);
  if (plaintext !== undefined && !isUnavailable(plaintext)) return { health: plaintext };
  const material = options.mode === 'off' ? {} : await step((own) => readMaterial(options, own.signal));
  const clientCertificateSent = material.client !== undefined;

  const handshake = (): Promise<HandshakeOutcome> =>
    step((own) =>
      tlsHandshake({
        host: address.host,
        port: address.port,
        serverName,
        budget: own,
        ...(material.ca === undefined ? {} : { ca: material.ca }),
        ...material.client,
      }),
    );

  const overTls = async (outcome: HandshakeOutcome): Promise<ServerGrpcResult | undefined> => {
    if (outcome.kind === 'tls-alert') {
      return { transport: { kind: 'tls-refused', refusal: refusalOf(outcome.error, outcome.code), clientCertificateSent } };
    }
    if (outcome.kind !== 'tls') return undefined;
    const leaf = outcome.chain[0];
    if (leaf === undefined)
      return { health: { kind: 'error', error: 'the server finished a TLS handshake without presenting a certificate' } };
    const trust = trustOf(outcome, options, material);
    const nameMatches = options.insecureSkipVerify || tls.checkServerIdentity(serverName, leaf.toLegacyObject()) === undefined;
    const transport: ServerTransport = {
      kind: 'tls',
      serverName,
      certificate: certificateFacts(leaf),
      trust,
      nameMatches,
      clientCertificateSent,
      ...(outcome.session.kind === 'refused' ? { refused: refusalOf(outcome.session.error, outcome.session.code) } : {}),
    };
    // A call that verification or the server is known to refuse would only repeat what the transport says.
    if (transport.refused !== undefined || !nameMatches || trust.kind === 'unknown-authority' || trust.kind === 'no-ca') {
      return { transport };
    }
    const grpcTls: GrpcTls = {
      skipVerify: options.insecureSkipVerify,
      ...(material.ca === undefined ? {} : { ca: material.ca }),
      ...material.client,
      ...(serverName === address.host ? {} : { serverName }),
    };
    return { transport, health: await checkGrpcHealth(address.target, { ...remaining(), tls: grpcTls }) };
  };

  if (material.clientError !== undefined) return { health: { kind: 'error', error: material.clientError } };

  if (plaintext === undefined) {
    const outcome = await handshake();
    if (outcome.kind === 'unreachable')
      return { health: { kind: 'error', error: `no TLS connection to ${address.target}: ${outcome.error}` } };
    if (outcome.kind === 'not-tls') {
      const http2 = await step((own) => answersPlaintextHttp2(address.host, address.port, own));
      if (http2) return { transport: { kind: 'plaintext-port' } };
      return { health: { kind: 'error', error: `the port did not complete a TLS handshake: ${outcome.error}` } };
    }
    return (await overTls(outcome)) ?? {};
  }

  // The plaintext call could not connect: does the port speak TLS?
  const outcome = await handshake();
  if (options.mode === 'off') {
    if (outcome.kind === 'tls') {
      const leaf = outcome.chain[0];
      return { transport: { kind: 'tls-port', ...(leaf === undefined ? {} : { certificate: certificateFacts(leaf) }) } };
    }
    if (outcome.kind === 'tls-alert') return { transport: { kind: 'tls-port' } };
    return { health: plaintext };
  }
  return (await overTls(outcome)) ?? { health: plaintext };
}
