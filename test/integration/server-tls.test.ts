// The built bundle against the reference server serving TLS on its gRPC port (as upstream's TLS overlay
// does), discovered by --server-endpoint, in each --server-tls mode and with the certificate faults
// ServerTLS names: the flags, the probe and the report wired together. The probe's every case against
// real listeners is in test/unit/probes/server-transport.test.ts.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { runBundle } from '../support/bundle.ts';
import { uniqueName } from '../../dev/cluster/objects.ts';
import type { JsonReport } from '../support/json-report.ts';
import { createNamespace } from '../../dev/cluster/manifests.ts';
import { doctorIdentity, type Identity } from '../../dev/cluster/identity.ts';
import { startHealthServer, type HealthServer } from '../../dev/cluster/reference-server/health.ts';
import { startSampleInstall, type SampleInstall } from '../../dev/cluster/sample-install-local.ts';
import { caChain, clientCert, selfSignedServingCert, type ServingCert } from '../support/tls-pki.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';
const SERVICE = 'inference-cache-server.inference-cache-system.svc';
const DAY = 86_400_000;

describe.skipIf(kubeconfig === '')(`TLS on the gRPC port, through the bundle${skipReason}`, () => {
  const kc = new KubeConfig();
  const dir = mkdtempSync(join(tmpdir(), 'icd-server-tls-'));
  let install: SampleInstall;
  let doctor: Identity;
  let cert: ServingCert;
  const extra: HealthServer[] = [];

  const run = async (endpoint: string, args: string[], output = 'json') => {
    const result = await runBundle(
      ['doctor', '--kubeconfig', doctor.kubeconfig, '-o', output, '-n', install.workloadNamespace, '--server-endpoint', endpoint, ...args],
      { env: { PATH: process.env['PATH'] ?? '' } },
    );
    return { ...result, report: output === 'json' ? (JSON.parse(result.stdout) as JsonReport) : undefined };
  };
  const grpcCodes = (report: JsonReport | undefined) => (report?.findings ?? []).filter((f) => /^(SV|TL)/.test(f.code)).map((f) => f.code);
  const finding = (report: JsonReport | undefined, code: string) => report?.findings.find((f) => f.code === code);
  /** A TLS health listener with `serving` on a random loopback address; the doctor's HTTP probes then fail, which is not judged here. */
  const tlsListener = async (serving: ServingCert, clientCaPem?: string): Promise<string> => {
    const server = await startHealthServer('127.0.0.1', 0, 'SERVING', {
      certChainPem: serving.certPem,
      keyPem: serving.keyPem,
      ...(clientCaPem === undefined ? {} : { clientCaPem }),
    });
    extra.push(server);
    return `127.0.0.1:${server.port}`;
  };
  const verified = ['--server-ca-file', '', '--server-name', SERVICE];
  const trusting = (serving: ServingCert) => verified.map((a) => (a === '' ? serving.caFile : a));

  beforeAll(async () => {
    requireBundle();
    kc.loadFromFile(kubeconfig);
    cert = selfSignedServingCert(join(dir, 'serving'));
    install = await startSampleInstall(kc, {
      server: inject('server'),
      caFile: inject('caFile'),
      dir,
      workloadNamespace: uniqueName('tls'),
      grpcTls: { certFile: cert.certFile, keyFile: cert.keyFile },
    });
    const home = uniqueName('tls-home');
    await createNamespace(kc, home);
    doctor = await doctorIdentity(kc, { namespace: home, name: 'doctor', server: inject('server'), caFile: inject('caFile') });
  });
  afterAll(async () => {
    for (const s of extra) await s.stop();
    await install?.stop();
  });

  it('with its ca.crt and the Service name: TL011 and SV003, the whole install OK, exit 0', async () => {
    const { code, report } = await run(install.serverEndpoint, ['--snapshot-token-file', install.tokenFile, ...trusting(cert)]);
    expect(report?.findings.filter((f) => f.status !== 'OK')).toEqual([]);
    expect(grpcCodes(report)).toEqual(['SV003', 'TL011']);
    expect(finding(report, 'TL011')?.message).toContain(`NotAfter ${new X509Certificate(cert.leafPem).validToDate.toISOString()}`);
    expect(code).toBe(0);
  });

  it('auto with no CA: TL001 says the port speaks TLS and which flag and chart value to set; no protocol error', async () => {
    const { code, report, stdout } = await run(install.serverEndpoint, ['--snapshot-token-file', install.tokenFile], 'human');
    expect(code).toBe(2);
    expect(stdout).toContain('TL001');
    expect(stdout).toContain('speaks TLS');
    expect(stdout).toContain('--server-ca-file');
    expect(stdout).toContain('serverTLS.enabled');
    expect(stdout).not.toMatch(/wrong version number|Failed to connect/);
    expect(report).toBeUndefined();
  });

  it('--server-tls off: TL007 and SV001', async () => {
    const { code, report } = await run(install.serverEndpoint, ['--server-tls', 'off']);
    expect(grpcCodes(report)).toEqual(['SV001', 'TL007']);
    expect(code).toBe(2);
  });

  it('--server-tls on against a plaintext port: TL008', async () => {
    const plain = await startHealthServer('127.0.0.1', 0, 'SERVING');
    extra.push(plain);
    const { report } = await run(`127.0.0.1:${plain.port}`, ['--server-tls', 'on', ...trusting(cert)]);
    expect(grpcCodes(report)).toEqual(['SV001', 'TL008']);
  });

  it('--server-insecure-skip-verify: TL012 (INFO) and SV003', async () => {
    const { report } = await run(install.serverEndpoint, ['--server-insecure-skip-verify']);
    expect(grpcCodes(report)).toEqual(['SV003', 'TL012']);
    expect(finding(report, 'TL012')?.status).toBe('INFO');
  });

  it.each([
    ['another CA', () => selfSignedServingCert(join(dir, 'other')).caFile, undefined, ['SV001', 'TL002']],
    ['a name it does not carry', undefined, 'other.example', ['SV001', 'TL003']],
  ] as const)('%s → SV001 and its TL code', async (_name, ca, name, codes) => {
    const args = ['--server-ca-file', ca === undefined ? cert.caFile : ca(), '--server-name', name ?? SERVICE];
    const { report } = await run(install.serverEndpoint, args);
    expect(grpcCodes(report)).toEqual(codes);
  });

  it('expired: TL004 naming NotAfter; not yet valid: TL005; expiring in 5 days: TL006 beside SV003', async () => {
    const expired = selfSignedServingCert(join(dir, 'expired'), {
      notBefore: new Date(Date.now() - 40 * DAY),
      notAfter: new Date(Date.now() - 2 * DAY),
    });
    const future = caChain(join(dir, 'future'), { notBefore: new Date(Date.now() + 3 * DAY), notAfter: new Date(Date.now() + 60 * DAY) });
    const soon = caChain(join(dir, 'soon'), { intermediate: true, notAfter: new Date(Date.now() + 5 * DAY + 3_600_000) });
    const a = await run(await tlsListener(expired), trusting(expired));
    expect(grpcCodes(a.report)).toEqual(['SV001', 'TL004']);
    expect(finding(a.report, 'TL004')?.message).toMatch(/expired 2 days ago/);
    const b = await run(await tlsListener(future), trusting(future));
    expect(grpcCodes(b.report)).toEqual(['SV001', 'TL005']);
    const c = await run(await tlsListener(soon), trusting(soon));
    expect(grpcCodes(c.report)).toEqual(['SV003', 'TL011', 'TL006']);
    expect(finding(c.report, 'TL006')?.message).toContain('expires in 5 days');
  });

  it('a client certificate required: TL009 without one, SV003 with one', async () => {
    const clientCa = caChain(join(dir, 'client-ca'));
    const client = clientCert(join(dir, 'client'), clientCa.dir, 'doctor');
    const endpoint = await tlsListener(cert, clientCa.caPem);
    const without = await run(endpoint, trusting(cert));
    expect(grpcCodes(without.report)).toEqual(['SV001', 'TL009']);
    const withCert = await run(endpoint, [...trusting(cert), '--server-cert-file', client.certFile, '--server-key-file', client.keyFile]);
    expect(grpcCodes(withCert.report)).toEqual(['SV003', 'TL011']);
  });
});
