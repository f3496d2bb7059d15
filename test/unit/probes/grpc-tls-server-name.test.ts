// The TLS server name of the gRPC health call, against real TLS gRPC servers on loopback: an IP
// address is never sent as SNI (RFC 6066 forbids it, and Node prints a DeprecationWarning on stderr
// when a client tries), while the certificate is still checked against the name the operator gave or
// the host dialled, IP address or not. Every test also listens for the warnings Node emits in this
// process and expects none.
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkGrpcHealth, type GrpcTls } from '../../../src/probes/grpc-health.ts';
import { probeServerGrpc } from '../../../src/probes/server-transport.ts';
import { startHealthServer, type HealthServer } from '../../../dev/cluster/reference-server/health.ts';
import { createCa, signedCert } from '../../../dev/cluster/pki/openssl.ts';
import { selfSignedServingCert, type ServingCert } from '../../support/tls-pki.ts';

const SERVICE = 'inference-cache-server.inference-cache-system.svc';
const DEADLINE = 5_000;

/** PEM text of a serving certificate and its key, and what a client must trust for it. */
interface Pem {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
}

/**
 * A TLS front to a plaintext gRPC health server that records the SNI of each connection: a real
 * server, as far as the client can tell, that can also say what name the client sent.
 */
interface SniFront {
  readonly port: number;
  /** The SNI of each connection, in order; null when the client sent none. */
  readonly names: (string | null)[];
  close(): Promise<void>;
}

async function sniFront(host: string, pem: Pem, backendPort: number): Promise<SniFront> {
  const names: (string | null)[] = [];
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ cert: pem.certPem, key: pem.keyPem, ALPNProtocols: ['h2'] }, (socket) => {
    names.push(typeof socket.servername === 'string' ? socket.servername : null);
    const backend = net.connect(backendPort, '127.0.0.1');
    for (const s of [socket, backend]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.once('close', () => sockets.delete(s));
    }
    socket.once('close', () => backend.destroy());
    backend.once('close', () => socket.destroy());
    socket.pipe(backend).pipe(socket);
  });
  server.on('tlsClientError', () => undefined);
  server.listen(0, host);
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    names,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Whether this machine can listen on the IPv6 loopback. */
async function canListenOn(host: string): Promise<boolean> {
  const server = net.createServer();
  try {
    server.listen(0, host);
    await once(server, 'listening');
    server.close();
    return true;
  } catch {
    return false;
  }
}

/** Everything Node emitted as a warning in this process (a deprecation, an experimental feature). */
const warnings: Error[] = [];
const onWarning = (warning: Error): void => {
  warnings.push(warning);
};
/** How many warnings had been emitted when the running test began. */
let warningsBefore = 0;

let dir: string;
/** A certificate for the Service's DNS names only, as the chart's Certificate makes it. */
let dnsCert: ServingCert;
/** A certificate for the loopback addresses (IP subjectAltNames) and nothing else. */
let ipCert: Pem;
/** A certificate for `localhost`. */
let localhostCert: ServingCert;
let backend: HealthServer;
let dnsFront: SniFront;
let ipFront: SniFront;
let localhostFront: SniFront;
let ipv6Front: SniFront | undefined;

beforeAll(async () => {
  process.on('warning', onWarning);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icd-grpc-sni-'));
  dnsCert = selfSignedServingCert(path.join(dir, 'dns'));
  localhostCert = selfSignedServingCert(path.join(dir, 'localhost'), { dnsNames: ['localhost'] });
  const ipDir = path.join(dir, 'ip');
  fs.mkdirSync(ipDir);
  createCa(ipDir, 'loopback test CA');
  signedCert(ipDir, 'ip', '/CN=loopback', 'subjectAltName = IP:127.0.0.1, IP:::1\nextendedKeyUsage = serverAuth\n');
  const read = (file: string): string => fs.readFileSync(path.join(ipDir, file), 'utf8');
  ipCert = { certPem: read('ip.crt'), keyPem: read('ip.key'), caPem: read('ca.crt') };

  backend = await startHealthServer('127.0.0.1', 0, 'SERVING');
  dnsFront = await sniFront('127.0.0.1', dnsCert, backend.port);
  ipFront = await sniFront('127.0.0.1', ipCert, backend.port);
  localhostFront = await sniFront('127.0.0.1', localhostCert, backend.port);
  if (await canListenOn('::1')) ipv6Front = await sniFront('::1', ipCert, backend.port);
});

afterAll(async () => {
  process.off('warning', onWarning);
  for (const front of [dnsFront, ipFront, localhostFront, ipv6Front]) await front?.close();
  await backend?.stop();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

/** Lets a warning emitted during the test (Node emits them on the next tick) reach the listener. */
async function settled(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** The warnings emitted since the test began, as `[CODE] name: message`. */
function warningsSinceStart(): string[] {
  return warnings.slice(warningsBefore).map((w) => `[${(w as { code?: string }).code ?? ''}] ${w.name}: ${w.message}`);
}

describe('checkGrpcHealth over TLS', () => {
  beforeEach(() => {
    warningsBefore = warnings.length;
  });
  afterEach(async () => {
    await settled();
    expect(warningsSinceStart()).toEqual([]);
  });

  /** Calls the health service of `front` at `host` and returns the result with the SNI the front saw. */
  async function call(front: SniFront, host: string, material: GrpcTls): Promise<{ result: unknown; sni: (string | null)[] }> {
    const namesBefore = front.names.length;
    const target = host.includes(':') ? `[${host}]:${front.port}` : `${host}:${front.port}`;
    const result = await checkGrpcHealth(target, { deadlineMs: DEADLINE, tls: material });
    return { result, sni: [...new Set(front.names.slice(namesBefore))] };
  }

  it('dialled by IP with verification skipped: SERVING, and no SNI', async () => {
    const { result, sni } = await call(dnsFront, '127.0.0.1', { skipVerify: true });
    expect(result).toEqual({ kind: 'status', status: 'SERVING' });
    expect(sni).toEqual([null]);
  });

  it('dialled by IPv6 with verification skipped: SERVING, and no SNI', async (ctx) => {
    if (ipv6Front === undefined) ctx.skip();
    const { result, sni } = await call(ipv6Front as SniFront, '::1', { skipVerify: true });
    expect(result).toEqual({ kind: 'status', status: 'SERVING' });
    expect(sni).toEqual([null]);
  });

  it('dialled by IP, verified: the certificate must carry that IP address, and no SNI is sent', async () => {
    const { result, sni } = await call(ipFront, '127.0.0.1', { skipVerify: false, ca: Buffer.from(ipCert.caPem) });
    expect(result).toEqual({ kind: 'status', status: 'SERVING' });
    expect(sni).toEqual([null]);
  });

  it('dialled by IPv6, verified against the IPv6 address', async (ctx) => {
    if (ipv6Front === undefined) ctx.skip();
    const { result, sni } = await call(ipv6Front as SniFront, '::1', { skipVerify: false, ca: Buffer.from(ipCert.caPem) });
    expect(result).toEqual({ kind: 'status', status: 'SERVING' });
    expect(sni).toEqual([null]);
  });

  it('dialled by IP, verified, a certificate with DNS names only: refused, as the name does not match', async () => {
    const { result } = await call(dnsFront, '127.0.0.1', { skipVerify: false, ca: Buffer.from(dnsCert.caPem) });
    expect(result).toMatchObject({ kind: 'error', error: expect.stringMatching(/^rpc error: code = Unavailable .*127\.0\.0\.1/) });
  });

  it('dialled by IP with --server-name: SNI is that name, and the certificate must carry it', async () => {
    const { result, sni } = await call(dnsFront, '127.0.0.1', { skipVerify: false, ca: Buffer.from(dnsCert.caPem), serverName: SERVICE });
    expect(result).toEqual({ kind: 'status', status: 'SERVING' });
    expect(sni).toEqual([SERVICE]);
  });

  it('dialled by IP with a --server-name the certificate lacks: refused, the name sent as SNI', async () => {
    const { result, sni } = await call(dnsFront, '127.0.0.1', {
      skipVerify: false,
      ca: Buffer.from(dnsCert.caPem),
      serverName: 'other.example',
    });
    expect(result).toMatchObject({ kind: 'error', error: expect.stringMatching(/^rpc error: code = Unavailable .*other\.example/) });
    expect(sni.filter((n) => n !== 'other.example')).toEqual([]);
  });

  it('dialled by name with an IP address as --server-name: no SNI, and the certificate must carry the address', async () => {
    const { result, sni } = await call(ipFront, 'localhost', { skipVerify: false, ca: Buffer.from(ipCert.caPem), serverName: '127.0.0.1' });
    expect(result).toEqual({ kind: 'status', status: 'SERVING' });
    expect(sni).toEqual([null]);
  });

  it('dialled by name: SNI is the host dialled, and the certificate must carry it', async () => {
    const { result, sni } = await call(localhostFront, 'localhost', { skipVerify: false, ca: Buffer.from(localhostCert.caPem) });
    expect(result).toEqual({ kind: 'status', status: 'SERVING' });
    expect(sni).toEqual(['localhost']);
  });

  it('dialled by name, a certificate for other names: refused', async () => {
    const { result } = await call(dnsFront, 'localhost', { skipVerify: false, ca: Buffer.from(dnsCert.caPem) });
    expect(result).toMatchObject({ kind: 'error', error: expect.stringMatching(/^rpc error: code = Unavailable .*localhost/) });
  });
});

describe('the gRPC probe as --server-endpoint 127.0.0.1:PORT --server-tls on runs it, against the reference server in TLS', () => {
  let server: HealthServer;
  beforeAll(async () => {
    server = await startHealthServer('127.0.0.1', 0, 'SERVING', { certChainPem: dnsCert.certPem, keyPem: dnsCert.keyPem });
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach(() => {
    warningsBefore = warnings.length;
  });
  afterEach(async () => {
    await settled();
    expect(warningsSinceStart()).toEqual([]);
  });

  const address = () => ({ target: `127.0.0.1:${server.port}`, host: '127.0.0.1', port: server.port });

  it('--server-insecure-skip-verify: trust skipped, the name not judged, SERVING through TLS', async () => {
    const result = await probeServerGrpc(address(), { mode: 'on', insecureSkipVerify: true }, { deadlineMs: DEADLINE });
    expect(result.transport).toMatchObject({ kind: 'tls', serverName: '127.0.0.1', trust: { kind: 'skipped' }, nameMatches: true });
    expect(result.health).toEqual({ kind: 'status', status: 'SERVING' });
  });

  it('--server-name and --server-ca-file: verified, the name matches, SERVING through TLS', async () => {
    const result = await probeServerGrpc(
      address(),
      { mode: 'on', insecureSkipVerify: false, serverName: SERVICE, caFile: dnsCert.caFile },
      { deadlineMs: DEADLINE },
    );
    expect(result.transport).toMatchObject({ kind: 'tls', serverName: SERVICE, trust: { kind: 'verified' }, nameMatches: true });
    expect(result.health).toEqual({ kind: 'status', status: 'SERVING' });
  });

  it('--server-ca-file without --server-name: the IP address is not in the certificate, reported and not called', async () => {
    const result = await probeServerGrpc(
      address(),
      { mode: 'on', insecureSkipVerify: false, caFile: dnsCert.caFile },
      { deadlineMs: DEADLINE },
    );
    expect(result.transport).toMatchObject({ kind: 'tls', serverName: '127.0.0.1', trust: { kind: 'verified' }, nameMatches: false });
    expect(result.health).toBeUndefined();
  });
});

// Node emits DEP0123 once per process. This test runs last: that it sees the warning proves that none
// was spent before it, so the tests above would have seen any.
describe('the warning listener', () => {
  it('sees DEP0123 when a client sends an IP address as the server name', async () => {
    warningsBefore = warnings.length;
    // Node's own listener would print the warning this provokes; it is put back afterwards.
    const others = process.listeners('warning').filter((l) => l !== onWarning);
    for (const l of others) process.off('warning', l);
    try {
      const socket = tls.connect({ host: '127.0.0.1', port: dnsFront.port, servername: '127.0.0.1', rejectUnauthorized: false });
      socket.on('error', () => undefined);
      await once(socket, 'secureConnect');
      socket.destroy();
      await settled();
    } finally {
      for (const l of others) process.on('warning', l);
    }
    expect(warningsSinceStart()).toEqual([
      expect.stringMatching(/^\[DEP0123\] DeprecationWarning: Setting the TLS ServerName to an IP address/),
    ]);
  });
});
