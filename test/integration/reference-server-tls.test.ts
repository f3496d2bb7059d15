// TLS on the reference cache-plane server's gRPC port : the certificates test/support/tls-pki.ts
// makes, the server serving them to grpc-js clients (self-signed like cert-manager's selfSigned Issuer, a
// root → intermediate → leaf chain, mTLS), the CLI flags, and what Node's own TLS client reports for the
// trust failures the doctor has to tell apart. Real sockets on 127.0.0.1; no control plane needed.
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import * as tls from 'node:tls';
import { Client, credentials, Metadata, type ChannelCredentials, type ServiceError } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import { HEALTH_CHECK_PATH, decodeHealthCheckResponse, encodeHealthCheckRequest } from '../../src/probes/grpc-health.ts';
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../dev/cluster/reference-server/server.ts';
import {
  DEFAULT_SERVER_DNS_NAMES,
  caChain,
  clientCert,
  selfSignedServingCert,
  type CaChain,
  type ClientCert,
  type ServingCert,
} from '../support/tls-pki.ts';

const MAIN = path.join(PROJECT_ROOT, 'dev/cluster/reference-server/main.ts');
const SERVER_NAME = 'inference-cache-server.inference-cache-system.svc';
const DAY_MS = 24 * 60 * 60 * 1000;
const SERVING = 1;
const UNAVAILABLE = 14;

interface CheckResult {
  err?: ServiceError;
  status?: number;
}

/** One Health/Check for service "" with grpc-js, verifying the server as `SERVER_NAME`. */
async function healthCheck(target: string, creds: ChannelCredentials): Promise<CheckResult> {
  const client = new Client(target, creds, { 'grpc.ssl_target_name_override': SERVER_NAME });
  try {
    return await new Promise<CheckResult>((done) => {
      client.makeUnaryRequest(
        HEALTH_CHECK_PATH,
        () => encodeHealthCheckRequest(''),
        (b: Buffer) => decodeHealthCheckResponse(b),
        null,
        new Metadata(),
        { deadline: Date.now() + 10_000 },
        (err, status) => done(err === null ? (status === undefined ? {} : { status }) : { err }),
      );
    });
  } finally {
    client.close();
  }
}

const trusting = (ca: { caPem: string }, client?: ClientCert): ChannelCredentials =>
  client === undefined
    ? credentials.createSsl(Buffer.from(ca.caPem))
    : credentials.createSsl(Buffer.from(ca.caPem), Buffer.from(client.keyPem), Buffer.from(client.certPem));

interface TlsOutcome {
  /** Set when the handshake completed on the client's side. */
  secure?: { authorized: boolean; authorizationError: string | undefined; protocol: string | null };
  /** The first error after or instead of the handshake. */
  error?: NodeJS.ErrnoException;
  /** Whether the error came after `secureConnect`. */
  errorAfterSecure?: boolean;
}

/**
 * Node's TLS client against `port`, verifying nothing itself (`rejectUnauthorized: false`), offering h2
 * like a gRPC client; collects what the doctor would see until the server speaks or closes, or 3 s pass.
 */
function tlsProbe(port: number, opts: tls.ConnectionOptions): Promise<TlsOutcome> {
  return new Promise((done) => {
    const outcome: TlsOutcome = {};
    const socket = tls.connect({
      host: '127.0.0.1',
      port,
      servername: SERVER_NAME,
      rejectUnauthorized: false,
      ALPNProtocols: ['h2'],
      ...opts,
    });
    socket.on('secureConnect', () => {
      const authorizationError = socket.authorizationError as Error | string | null;
      outcome.secure = {
        authorized: socket.authorized,
        authorizationError:
          authorizationError === null
            ? undefined
            : typeof authorizationError === 'string'
              ? authorizationError
              : authorizationError.message,
        protocol: socket.getProtocol(),
      };
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (outcome.error === undefined) {
        outcome.error = err;
        outcome.errorAfterSecure = outcome.secure !== undefined;
      }
    });
    // The server's first bytes (its HTTP/2 SETTINGS) mean it accepted the connection: nothing more to see.
    socket.on('data', () => socket.destroy());
    const timer = setTimeout(() => socket.destroy(), 3_000);
    socket.on('close', () => {
      clearTimeout(timer);
      done(outcome);
    });
  });
}

describe('reference server: TLS on the gRPC port', () => {
  let dir = '';
  let selfSigned: ServingCert;
  let otherSelfSigned: ServingCert;
  let expired: ServingCert;
  let notYetValid: ServingCert;
  let chain: CaChain;
  let otherChain: CaChain;
  let expiredChain: CaChain;
  let doctorCert: ClientCert;
  let strangerCert: ClientCert;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refsrv-tls-'));
    const sub = (name: string): string => path.join(dir, name);
    selfSigned = selfSignedServingCert(sub('self-signed'));
    otherSelfSigned = selfSignedServingCert(sub('other-self-signed'));
    expired = selfSignedServingCert(sub('expired'), {
      notBefore: new Date(Date.now() - 40 * DAY_MS),
      notAfter: new Date(Date.now() - DAY_MS),
    });
    notYetValid = selfSignedServingCert(sub('not-yet-valid'), {
      notBefore: new Date(Date.now() + DAY_MS),
      notAfter: new Date(Date.now() + 40 * DAY_MS),
    });
    chain = caChain(sub('chain'), { intermediate: true });
    otherChain = caChain(sub('other-chain'));
    expiredChain = caChain(sub('expired-chain'), {
      intermediate: true,
      notBefore: new Date(Date.now() - 40 * DAY_MS),
      notAfter: new Date(Date.now() - DAY_MS),
    });
    doctorCert = clientCert(sub('clients'), chain.dir, 'doctor');
    strangerCert = clientCert(sub('strangers'), otherChain.dir, 'stranger');
  });
  afterAll(() => {
    if (dir !== '') fs.rmSync(dir, { recursive: true, force: true });
  });

  const running: ReferenceServer[] = [];
  const start = async (opts: ReferenceServerOptions): Promise<ReferenceServer> => {
    const srv = await startReferenceServer({ insecureDisableAuth: true, ...opts });
    running.push(srv);
    return srv;
  };
  const serving = (cert: ServingCert, clientCaFile?: string): Promise<ReferenceServer> =>
    start({ tls: { certFile: cert.certFile, keyFile: cert.keyFile, ...(clientCaFile === undefined ? {} : { clientCaFile }) } });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.stop()));
  });

  describe('tls-pki', () => {
    it('makes a cert-manager-like self-signed serving certificate: not a CA, empty subject, its own ca.crt', () => {
      const cert = new X509Certificate(selfSigned.certPem);
      expect(cert.ca).toBe(false);
      // Node reports an empty name as undefined, whatever its type says.
      expect(cert.subject || '').toBe('');
      expect(cert.issuer || '').toBe('');
      expect(cert.subjectAltName).toBe(DEFAULT_SERVER_DNS_NAMES.map((n) => `DNS:${n}`).join(', '));
      // Self-signed by its own key, yet OpenSSL's issued-by check says no: keyUsage lacks keyCertSign.
      expect(cert.verify(cert.publicKey)).toBe(true);
      expect(cert.checkIssued(cert)).toBe(false);
      expect(fs.readFileSync(selfSigned.caFile, 'utf8')).toBe(fs.readFileSync(selfSigned.certFile, 'utf8'));
      expect(cert.checkPrivateKey(createPrivateKey(selfSigned.keyPem))).toBe(true);
      const now = Date.now();
      expect(cert.validToDate.getTime() - cert.validFromDate.getTime()).toBe(30 * DAY_MS);
      expect(cert.validFromDate.getTime()).toBeLessThan(now);
      expect(new X509Certificate(expired.certPem).validToDate.getTime()).toBeLessThan(now);
      expect(new X509Certificate(notYetValid.certPem).validFromDate.getTime()).toBeGreaterThan(now);
    });

    it('makes a root → intermediate → leaf chain: tls.crt holds leaf and intermediate, ca.crt the root', () => {
      const certs = fs.readFileSync(chain.certFile, 'utf8').match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n/g) ?? [];
      expect(certs).toHaveLength(2);
      const [leaf, intermediate] = certs.map((pem) => new X509Certificate(pem));
      const root = new X509Certificate(fs.readFileSync(chain.caFile));
      expect(leaf?.ca).toBe(false);
      expect(intermediate?.ca).toBe(true);
      expect(root.ca).toBe(true);
      expect(leaf && intermediate && leaf.checkIssued(intermediate) && leaf.verify(intermediate.publicKey)).toBe(true);
      expect(intermediate && intermediate.checkIssued(root) && intermediate.verify(root.publicKey)).toBe(true);
      const client = new X509Certificate(doctorCert.certPem);
      expect(client.subject).toBe('CN=doctor');
      expect(client.checkIssued(root) && client.verify(root.publicKey)).toBe(true);
      expect(client.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    });
  });

  describe('grpc-js clients', () => {
    it('answer SERVING over TLS with a self-signed certificate trusted as its own CA; HTTP stays plain', async () => {
      const srv = await serving(selfSigned);
      expect(srv.grpcTls).toBe(true);
      expect(await healthCheck(srv.grpcTarget, trusting(selfSigned))).toEqual({ status: SERVING });
      const snapshot = await fetch(`${srv.baseUrl}/snapshot`);
      expect(snapshot.status).toBe(200);
    });

    it('answer SERVING through a root → intermediate → leaf chain, trusting only the root', async () => {
      const srv = await serving(chain);
      expect(await healthCheck(srv.grpcTarget, trusting(chain))).toEqual({ status: SERVING });
    });

    it('fail UNAVAILABLE in plaintext, or trusting another CA, or facing an expired certificate; no Check arrives', async () => {
      const srv = await serving(selfSigned);
      const plaintext = await healthCheck(srv.grpcTarget, credentials.createInsecure());
      expect(plaintext.err?.code).toBe(UNAVAILABLE);
      const otherCa = await healthCheck(srv.grpcTarget, trusting(otherSelfSigned));
      expect(otherCa.err?.code).toBe(UNAVAILABLE);
      expect(otherCa.err?.details).toMatch(/self[- ]signed certificate/i);
      const old = await serving(expired);
      const stale = await healthCheck(old.grpcTarget, trusting(expired));
      expect(stale.err?.code).toBe(UNAVAILABLE);
      expect(stale.err?.details).toMatch(/certificate has expired/);
      expect(srv.healthChecks + old.healthChecks).toBe(0);
    });

    it('with a client CA: refuse a client without a certificate or with a foreign one, admit one the CA issued', async () => {
      const srv = await serving(chain, chain.caFile);
      const anonymous = await healthCheck(srv.grpcTarget, trusting(chain));
      expect(anonymous.err?.code).toBe(UNAVAILABLE);
      const stranger = await healthCheck(srv.grpcTarget, trusting(chain, strangerCert));
      expect(stranger.err?.code).toBe(UNAVAILABLE);
      expect(srv.healthChecks).toBe(0);
      expect(await healthCheck(srv.grpcTarget, trusting(chain, doctorCert))).toEqual({ status: SERVING });
      expect(srv.healthChecks).toBe(1);
    });

    it('start fails, naming the file, when a TLS file is missing', async () => {
      await expect(start({ tls: { certFile: path.join(dir, 'nope.crt'), keyFile: selfSigned.keyFile } })).rejects.toThrow(
        /TLS certificate file: .*nope\.crt/,
      );
    });
  });

  describe("Node's TLS client (what a doctor probe would see)", () => {
    it('authorizes a self-signed non-CA leaf when the leaf itself is the CA', async () => {
      const srv = await serving(selfSigned);
      const outcome = await tlsProbe(srv.grpcPort, { ca: selfSigned.caPem });
      expect(outcome.secure).toEqual({ authorized: true, authorizationError: undefined, protocol: 'TLSv1.3' });
      expect(outcome.error).toBeUndefined();
    });

    it('reports the trust failure by code; an expired or not-yet-valid leaf masks a wrong CA', async () => {
      const codeOf = async (cert: ServingCert, ca: { caPem: string }): Promise<string | undefined> => {
        const srv = await serving(cert);
        return (await tlsProbe(srv.grpcPort, { ca: ca.caPem })).secure?.authorizationError;
      };
      expect(await codeOf(selfSigned, otherSelfSigned)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(await codeOf(selfSigned, chain)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(await codeOf(chain, otherChain)).toBe('UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
      expect(await codeOf(otherChain, chain)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      expect(await codeOf(expired, expired)).toBe('CERT_HAS_EXPIRED');
      expect(await codeOf(notYetValid, notYetValid)).toBe('CERT_NOT_YET_VALID');
      expect(await codeOf(expiredChain, expiredChain)).toBe('CERT_HAS_EXPIRED');
      expect(await codeOf(expired, selfSigned)).toBe('CERT_HAS_EXPIRED');
      expect(await codeOf(notYetValid, selfSigned)).toBe('CERT_NOT_YET_VALID');
      expect(await codeOf(expiredChain, otherChain)).toBe('CERT_HAS_EXPIRED');
    });

    it('without a client certificate, TLS 1.3 completes the handshake and the server then sends "certificate required"', async () => {
      const srv = await serving(chain, chain.caFile);
      const outcome = await tlsProbe(srv.grpcPort, { ca: chain.caPem });
      expect(outcome.secure).toEqual({ authorized: true, authorizationError: undefined, protocol: 'TLSv1.3' });
      expect(outcome.errorAfterSecure).toBe(true);
      expect(outcome.error?.code).toBe('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED');
      expect(outcome.error?.message).toMatch(/tlsv13 alert certificate required.*SSL alert number 116/);
      const tls12 = await tlsProbe(srv.grpcPort, { ca: chain.caPem, maxVersion: 'TLSv1.2' });
      expect(tls12.secure).toBeUndefined();
      expect(tls12.error?.code).toBe('ERR_SSL_SSL/TLS_ALERT_HANDSHAKE_FAILURE');
      const withCert = await tlsProbe(srv.grpcPort, { ca: chain.caPem, cert: doctorCert.certPem, key: doctorCert.keyPem });
      expect(withCert.secure?.authorized).toBe(true);
      expect(withCert.error).toBeUndefined();
    });

    it('a TLS client on the plaintext port gets "wrong version number"', async () => {
      const srv = await start({});
      expect(srv.grpcTls).toBe(false);
      const outcome = await tlsProbe(srv.grpcPort, { ca: selfSigned.caPem });
      expect(outcome.secure).toBeUndefined();
      expect(outcome.error?.code).toBe('ERR_SSL_WRONG_VERSION_NUMBER');
      expect(outcome.error?.message).toMatch(/wrong version number/);
    });

    it('a plaintext HTTP/2 preface on the TLS port is answered with nothing: the server just closes', async () => {
      const srv = await serving(selfSigned);
      const reply = await new Promise<{ bytes: Buffer; ended: boolean; error?: string }>((done) => {
        const chunks: Buffer[] = [];
        let ended = false;
        let error: string | undefined;
        const socket = net.connect(srv.grpcPort, '127.0.0.1', () => {
          const settings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
          socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), settings]));
        });
        socket.on('data', (d: Buffer) => chunks.push(d));
        socket.on('end', () => (ended = true));
        socket.on('error', (err: NodeJS.ErrnoException) => (error = err.code));
        const timer = setTimeout(() => socket.destroy(), 10_000);
        socket.on('close', () => {
          clearTimeout(timer);
          done({ bytes: Buffer.concat(chunks), ended, ...(error === undefined ? {} : { error }) });
        });
      });
      expect(reply).toEqual({ bytes: Buffer.alloc(0), ended: true });
    });
  });

  describe('the CLI (main.ts)', () => {
    const children: ChildProcess[] = [];
    afterAll(() => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    });

    interface Ready {
      grpcPort: number;
      httpPort: number;
      tls?: boolean;
    }

    /** Starts main.ts; resolves with its ready line, or with the exit code when it exits first. */
    const launch = (args: string[]) =>
      new Promise<{ child: ChildProcess; ready?: Ready; code?: number | null; stderr: () => string }>((done, fail) => {
        const child = spawn(process.execPath, [MAIN, '--insecure-disable-auth', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        children.push(child);
        let stderr = '';
        child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        createInterface({ input: child.stdout }).once('line', (line) =>
          done({ child, ready: JSON.parse(line) as Ready, stderr: () => stderr }),
        );
        child.once('exit', (code) => done({ child, code, stderr: () => stderr }));
        child.once('error', fail);
      });
    const exited = (child: ChildProcess) =>
      new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', (code) => r(code))));

    it('serves TLS with --tls-cert-file and --tls-key-file, and says so on its ready line', async () => {
      const run = await launch(['--tls-cert-file', selfSigned.certFile, '--tls-key-file', selfSigned.keyFile]);
      expect(run.ready, run.stderr()).toMatchObject({ tls: true });
      const target = `127.0.0.1:${run.ready?.grpcPort ?? 0}`;
      expect(await healthCheck(target, trusting(selfSigned))).toEqual({ status: SERVING });
      expect((await healthCheck(target, credentials.createInsecure())).err?.code).toBe(UNAVAILABLE);
      run.child.kill('SIGTERM');
      expect(await exited(run.child)).toBe(0);
    });

    it('requires client certificates with --tls-client-ca-file', async () => {
      const run = await launch(['--tls-cert-file', chain.certFile, '--tls-key-file', chain.keyFile, '--tls-client-ca-file', chain.caFile]);
      expect(run.ready, run.stderr()).toMatchObject({ tls: true });
      const target = `127.0.0.1:${run.ready?.grpcPort ?? 0}`;
      expect((await healthCheck(target, trusting(chain))).err?.code).toBe(UNAVAILABLE);
      expect(await healthCheck(target, trusting(chain, doctorCert))).toEqual({ status: SERVING });
      run.child.kill('SIGTERM');
      expect(await exited(run.child)).toBe(0);
    });

    it('prints no tls field without the flags', async () => {
      const run = await launch([]);
      expect(run.ready, run.stderr()).toBeDefined();
      expect(run.ready?.tls).toBeUndefined();
      run.child.kill('SIGTERM');
      expect(await exited(run.child)).toBe(0);
    });

    it('exits 2 when the TLS flags do not go together, and 1 when a file cannot be read', async () => {
      for (const [args, message] of [
        [['--tls-cert-file', selfSigned.certFile], /--tls-cert-file and --tls-key-file go together/],
        [['--tls-key-file', selfSigned.keyFile], /--tls-cert-file and --tls-key-file go together/],
        [['--tls-client-ca-file', chain.caFile], /--tls-client-ca-file needs --tls-cert-file and --tls-key-file/],
      ] as const) {
        const run = await launch([...args]);
        expect(run.ready, args.join(' ')).toBeUndefined();
        expect(run.code, args.join(' ')).toBe(2);
        expect(run.stderr()).toMatch(message);
      }
      const missing = await launch(['--tls-cert-file', path.join(dir, 'absent.crt'), '--tls-key-file', selfSigned.keyFile]);
      expect(missing.code).toBe(1);
      expect(missing.stderr()).toMatch(/cannot start: reading the TLS certificate file: .*absent\.crt/);
    });
  });
});
