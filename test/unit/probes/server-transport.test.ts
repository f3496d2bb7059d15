// The gRPC transport probe against real loopback servers: the reference server's health listener in
// plaintext and in TLS with certificates made here (a cert-manager-like self-signed leaf, a CA chain),
// in each --server-tls mode, and every certificate fault ServerTLS names.
import * as fs from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeServerGrpc, type ServerGrpcResult, type ServerTlsOptions } from '../../../src/probes/server-transport.ts';
import type { ServerTransport } from '../../../src/probes/results.ts';
import { startHealthServer, type HealthServer } from '../../../dev/cluster/reference-server/health.ts';
import { caChain, clientCert, selfSignedServingCert, type CaChain, type ServingCert } from '../../support/tls-pki.ts';
import { getClosedPort } from '../../support/servers/blackhole.ts';

const SERVICE = 'inference-cache-server.inference-cache-system.svc';
const DAY = 86_400_000;
const BUDGET = { deadlineMs: 10_000 };

let dir: string;
let selfSigned: ServingCert;
let chain: CaChain;
let otherCa: ServingCert;
const servers: HealthServer[] = [];

async function serve(cert?: ServingCert, clientCaPem?: string): Promise<number> {
  const tls =
    cert === undefined
      ? undefined
      : { certChainPem: cert.certPem, keyPem: cert.keyPem, ...(clientCaPem === undefined ? {} : { clientCaPem }) };
  const server = await startHealthServer('127.0.0.1', 0, 'SERVING', tls);
  servers.push(server);
  return server.port;
}

/** Probes 127.0.0.1:`port` verifying the Service name, unless `serverName: undefined` leaves the default (the host). */
function probe(
  port: number,
  options: Omit<Partial<ServerTlsOptions>, 'serverName'> & { readonly serverName?: string | undefined } = {},
): Promise<ServerGrpcResult> {
  const { serverName, ...rest } = { serverName: SERVICE, ...options };
  return probeServerGrpc(
    { target: `127.0.0.1:${port}`, host: '127.0.0.1', port },
    { mode: 'auto', insecureSkipVerify: false, ...rest, ...(serverName === undefined ? {} : { serverName }) },
    BUDGET,
  );
}

function tlsOf(result: ServerGrpcResult): Extract<ServerTransport, { kind: 'tls' }> {
  expect(result.transport?.kind).toBe('tls');
  return result.transport as Extract<ServerTransport, { kind: 'tls' }>;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icd-tls-'));
  selfSigned = selfSignedServingCert(path.join(dir, 'self'));
  chain = caChain(path.join(dir, 'chain'), { intermediate: true });
  otherCa = selfSignedServingCert(path.join(dir, 'other'));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a plaintext port', () => {
  it('auto: one plaintext health call, no transport to report', async () => {
    const port = await serve();
    expect(await probe(port)).toEqual({ health: { kind: 'status', status: 'SERVING' } });
  });
  it('off: the same', async () => {
    expect(await probe(await serve(), { mode: 'off', serverName: undefined })).toEqual({ health: { kind: 'status', status: 'SERVING' } });
  });
  it('on: plaintext-port, and no health call', async () => {
    expect(await probe(await serve(), { mode: 'on' })).toEqual({ transport: { kind: 'plaintext-port' } });
  });
});

describe('a TLS port with a cert-manager-like self-signed certificate', () => {
  it('auto with its ca.crt: verified, the names and dates read, SERVING through TLS', async () => {
    const result = await probe(await serve(selfSigned), { caFile: selfSigned.caFile });
    const t = tlsOf(result);
    expect(t.trust).toEqual({ kind: 'verified', anchor: { kind: 'ca-file', path: selfSigned.caFile } });
    expect(t.nameMatches).toBe(true);
    expect(t.certificate).toMatchObject({ subject: '', dnsNames: [SERVICE, `${SERVICE}.cluster.local`] });
    expect(Date.parse(t.certificate.notAfter)).toBeGreaterThan(Date.now() + 20 * DAY);
    expect(result.health).toEqual({ kind: 'status', status: 'SERVING' });
  });
  it('auto with no CA: the system roots do not lead to it, and no health call', async () => {
    const result = await probe(await serve(selfSigned));
    expect(tlsOf(result).trust).toEqual({ kind: 'unknown-authority', anchor: { kind: 'system' }, detail: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(result.health).toBeUndefined();
  });
  it('another CA: unknown authority', async () => {
    const result = await probe(await serve(selfSigned), { mode: 'on', caFile: otherCa.caFile });
    expect(tlsOf(result).trust).toMatchObject({ kind: 'unknown-authority', anchor: { kind: 'ca-file' } });
  });
  it('a CA file that does not exist: no-ca naming it', async () => {
    const missing = path.join(dir, 'absent', 'ca.crt');
    const result = await probe(await serve(selfSigned), { mode: 'on', caFile: missing });
    expect(tlsOf(result).trust).toEqual({ kind: 'no-ca', detail: `the CA file ${missing} cannot be used: ENOENT` });
  });
  it('a CA file with no certificate in it: no-ca', async () => {
    const empty = path.join(dir, 'empty.crt');
    fs.writeFileSync(empty, 'not a certificate\n');
    expect(tlsOf(await probe(await serve(selfSigned), { caFile: empty })).trust).toMatchObject({
      kind: 'no-ca',
      detail: expect.stringContaining('no PEM certificate'),
    });
  });
  it('dialled by IP without --server-name: the name does not match', async () => {
    const result = await probe(await serve(selfSigned), { caFile: selfSigned.caFile, serverName: undefined });
    const t = tlsOf(result);
    expect(t).toMatchObject({ serverName: '127.0.0.1', nameMatches: false, trust: { kind: 'verified' } });
    expect(result.health).toBeUndefined();
  });
  it('--server-insecure-skip-verify: skipped, and SERVING', async () => {
    const result = await probe(await serve(selfSigned), { insecureSkipVerify: true, serverName: undefined });
    expect(tlsOf(result)).toMatchObject({ trust: { kind: 'skipped' }, nameMatches: true });
    expect(result.health).toEqual({ kind: 'status', status: 'SERVING' });
  });
  it('off: tls-port with the certificate, and the plaintext call not reported', async () => {
    const result = await probe(await serve(selfSigned), { mode: 'off', serverName: undefined });
    expect(result.transport).toMatchObject({ kind: 'tls-port', certificate: { dnsNames: [SERVICE, `${SERVICE}.cluster.local`] } });
    expect(result.health).toBeUndefined();
  });
});

describe('certificate dates', () => {
  it('expired, right CA: still verified as to authority, the dates say expired, the call fails', async () => {
    const old = selfSignedServingCert(path.join(dir, 'expired'), {
      notBefore: new Date(Date.now() - 60 * DAY),
      notAfter: new Date(Date.now() - 3 * DAY),
    });
    const result = await probe(await serve(old), { caFile: old.caFile });
    const t = tlsOf(result);
    expect(t.trust.kind).toBe('verified');
    expect(Date.parse(t.certificate.notAfter)).toBeLessThan(Date.now());
    expect(result.health?.kind).toBe('error');
  });
  it('expired and another CA: unknown authority (OpenSSL would name only the date)', async () => {
    const old = selfSignedServingCert(path.join(dir, 'expired2'), {
      notBefore: new Date(Date.now() - 60 * DAY),
      notAfter: new Date(Date.now() - 3 * DAY),
    });
    const result = await probe(await serve(old), { caFile: otherCa.caFile });
    expect(tlsOf(result).trust).toMatchObject({ kind: 'unknown-authority', detail: 'CERT_HAS_EXPIRED' });
  });
  it('not yet valid, through a chain: verified as to authority, NotBefore ahead', async () => {
    const future = caChain(path.join(dir, 'future'), {
      notBefore: new Date(Date.now() + 2 * DAY),
      notAfter: new Date(Date.now() + 90 * DAY),
    });
    const t = tlsOf(await probe(await serve(future), { caFile: future.caFile }));
    expect(t.trust.kind).toBe('verified');
    expect(Date.parse(t.certificate.notBefore)).toBeGreaterThan(Date.now());
  });
  it('expiring in 5 days: verified, and SERVING', async () => {
    const soon = selfSignedServingCert(path.join(dir, 'soon'), { notAfter: new Date(Date.now() + 5 * DAY) });
    const result = await probe(await serve(soon), { caFile: soon.caFile });
    expect(tlsOf(result).trust.kind).toBe('verified');
    expect(result.health).toEqual({ kind: 'status', status: 'SERVING' });
  });
});

describe('a CA chain (root → intermediate → leaf)', () => {
  it('on, trusting the root only: verified, SERVING', async () => {
    const result = await probe(await serve(chain), { mode: 'on', caFile: chain.caFile });
    expect(tlsOf(result).trust.kind).toBe('verified');
    expect(result.health).toEqual({ kind: 'status', status: 'SERVING' });
  });
});

describe('client certificates', () => {
  it('required and none given: refused for want of one, no health call', async () => {
    const result = await probe(await serve(selfSigned, chain.caPem), { caFile: selfSigned.caFile });
    expect(tlsOf(result)).toMatchObject({ clientCertificateSent: false, refused: { clientCertificateRequired: true } });
    expect(result.health).toBeUndefined();
  });
  it('required and given: SERVING', async () => {
    const client = clientCert(path.join(dir, 'client'), chain.dir, 'doctor');
    const result = await probe(await serve(selfSigned, chain.caPem), {
      caFile: selfSigned.caFile,
      clientCertificate: { certFile: client.certFile, keyFile: client.keyFile },
    });
    expect(tlsOf(result)).toMatchObject({ clientCertificateSent: true });
    expect(tlsOf(result).refused).toBeUndefined();
    expect(result.health).toEqual({ kind: 'status', status: 'SERVING' });
  });
  it('a client certificate file that cannot be read: a health error naming it, nothing dialled', async () => {
    const result = await probe(await serve(selfSigned), {
      clientCertificate: { certFile: '/nonexistent/c.crt', keyFile: '/nonexistent/c.key' },
    });
    expect(result).toEqual({ health: { kind: 'error', error: expect.stringContaining('/nonexistent/c.crt') } });
  });
});

describe('a TLS port that does not speak HTTP/2', () => {
  it('an HTTPS/1.1 server refuses ALPN h2: tls-refused saying so', async () => {
    const https = createHttpsServer({ cert: selfSigned.certPem, key: selfSigned.keyPem }, (_req, res) => res.end());
    await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
    try {
      const result = await probe((https.address() as AddressInfo).port, { caFile: selfSigned.caFile });
      expect(result.transport).toMatchObject({
        kind: 'tls-refused',
        refusal: { error: expect.stringContaining('not HTTP/2') as string, clientCertificateRequired: false },
      });
    } finally {
      https.close();
    }
  });
});

describe('a closed port', () => {
  it('auto: the plaintext error stands, no transport', async () => {
    const result = await probe(await getClosedPort());
    expect(result.transport).toBeUndefined();
    expect(result.health).toMatchObject({ kind: 'error', error: expect.stringContaining('Unavailable') });
  });
  it('on: no TLS connection, said once', async () => {
    const result = await probe(await getClosedPort(), { mode: 'on' });
    expect(result).toEqual({
      health: { kind: 'error', error: expect.stringMatching(/^no TLS connection to 127\.0\.0\.1:\d+: .*ECONNREFUSED/) },
    });
  });
});
