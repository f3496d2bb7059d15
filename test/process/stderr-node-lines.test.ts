// In a pod, stderr is merged into the log that holds the JSON report, so it must hold the doctor's own
// lines and nothing that Node prints by itself (`(node:PID) ... Warning: ...`). The built bundle, run
// by a bare `node` as on a workstation (the image's --no-warnings is a second layer, not the guard):
// against a TLS gRPC server dialled by IP address (an address sent as the TLS server name makes Node
// warn), and with a preload that raises warnings while the program runs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, collectProcess } from '../../dev/process.ts';
import { requireBundle } from '../../dev/bundle.ts';
import { startHealthServer, type HealthServer } from '../../dev/cluster/reference-server/health.ts';
import { runBundle, writeKubeconfig } from '../support/bundle.ts';
import { expectNoNodeLines, nodeLines } from '../support/faults/node-lines.ts';
import { parseReport } from '../support/report-schema.ts';
import { selfSignedServingCert } from '../support/tls-pki.ts';

/** Raises a warning and a deprecation as the program first connects, or first writes to stdout. */
const RAISE_WARNINGS = path.resolve(import.meta.dirname, '../support/raise-warnings-preload.mjs');

let dir: string;
let kubeconfig: string;
let server: HealthServer;

beforeAll(async () => {
  requireBundle();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icd-stderr-'));
  kubeconfig = writeKubeconfig(`https://127.0.0.1:${await closedPort()}`);
  const cert = selfSignedServingCert(path.join(dir, 'tls'));
  server = await startHealthServer('127.0.0.1', 0, 'SERVING', { certChainPem: cert.certPem, keyPem: cert.keyPem });
});

afterAll(async () => {
  await server?.stop();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
});

/** The codes of a JSON report. */
function codesOf(stdout: string): string[] {
  return (parseReport(stdout) as { findings: { code: string }[] }).findings.map((f) => f.code);
}

describe("stderr holds only the doctor's own lines", () => {
  it('--server-tls on --server-insecure-skip-verify against a TLS gRPC server dialled by IP: SERVING through TLS, no line from Node', async () => {
    const args = ['--server-endpoint', `127.0.0.1:${server.port}`, '--server-tls', 'on', '--server-insecure-skip-verify'];
    const run = await runBundle(['doctor', '--kubeconfig', kubeconfig, '-o', 'json', '--timeout', '10s', ...args]);
    expectNoNodeLines(run.stderr, `doctor ${args.join(' ')}`);
    expect(run.code).toBe(2);
    const report = parseReport(run.stdout) as { findings: { code: string; message: string }[] };
    expect(report.findings.find((f) => f.code === 'SV003')?.message).toMatch(/SERVING .*through TLS/);
    expect(codesOf(run.stdout)).toContain('TL012');
  });

  const preloadRuns: { name: string; args: () => string[] }[] = [
    // Raising as the run connects (on whichever thread it runs) and as the report is written.
    { name: 'doctor', args: () => ['doctor', '--kubeconfig', kubeconfig, '-o', 'json', '--timeout', '10s'] },
    // Raising as the version is written, by the main thread alone.
    { name: '--version', args: () => ['--version'] },
  ];
  it.each(preloadRuns)('$name: a warning raised while the program runs does not reach stderr', async ({ name, args }) => {
    const mark = path.join(dir, `raised-${name}`);
    const run = await runBundle(args(), {
      command: [process.execPath, '--import', RAISE_WARNINGS, requireBundle()],
      env: { PATH: process.env['PATH'] ?? '', RAISE_WARNINGS_MARK: mark },
    });
    expect(fs.existsSync(mark), 'the preload raised its warnings').toBe(true);
    expectNoNodeLines(run.stderr, `${name} with warnings raised inside it`);
    if (name === 'doctor') {
      expect(run.code).toBe(2);
      expect(codesOf(run.stdout)).toContain('API001');
    } else {
      expect(run).toMatchObject({ code: 0, stderr: '' });
    }
  });

  it('the same preload in a program that keeps Node’s default makes Node print them (the test above can fail)', async () => {
    const port = await closedPort();
    const program = `require('node:net').connect(${port}, '127.0.0.1').on('error', () => {})`;
    const run = await collectProcess(process.execPath, ['--import', RAISE_WARNINGS, '-e', program], {
      env: { PATH: process.env['PATH'] ?? '' },
      cwd: dir,
    });
    expect(nodeLines(run.stderr)).toEqual([
      expect.stringMatching(/^\(node:\d+\) \[ICD_TEST_WARNING\] Warning: a warning raised inside the program$/),
      expect.stringMatching(/^\(Use `node --trace-warnings/),
      expect.stringMatching(/^\(node:\d+\) \[ICD_TEST_DEPRECATION\] DeprecationWarning: a deprecation raised inside the program$/),
    ]);
  });
});
