// The monitor as a process, from the bundle: SIGTERM and SIGINT end it promptly, with its run under way
// (an API server that never answers), exit 0 and its port closed; `--once` is a doctor run, its report
// on stdout and its exit code; a port already taken ends it at once with exit 3.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { closedPort } from '../../dev/process.ts';
import { writeKubeconfig } from '../support/bundle.ts';
import { parseReport } from '../support/report-schema.ts';
import { startBlackhole, type Blackhole } from '../support/servers/blackhole.ts';
import { HANG_GUARD_MS } from '../support/timing.ts';

let bundle = '';
let hole: Blackhole;
let silent = '';
let unreachable = '';
const scratch = mkdtempSync(join(tmpdir(), 'icd-monitor-'));

beforeAll(async () => {
  bundle = requireBundle();
  hole = await startBlackhole();
  silent = writeKubeconfig(`https://${hole.address}`);
  unreachable = writeKubeconfig(`https://127.0.0.1:${await closedPort()}`);
});
afterAll(async () => {
  await hole.close();
});

function start(args: readonly string[]) {
  const child = spawn(process.execPath, [bundle, 'monitor', ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: scratch });
  const out = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out, exited };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the monitor process', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s during a run that hangs: stops serving and exits 0, promptly', async (signal) => {
    const before = hole.accepted();
    const m = start(['--kubeconfig', silent, '--listen-address', '127.0.0.1:0', '--timeout', '60s']);
    await until(() => /on 127\.0\.0\.1:\d+/.test(m.out.stderr), 'the monitor to serve');
    const port = /on 127\.0\.0\.1:(\d+)/.exec(m.out.stderr)?.[1] ?? '';
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(503);
    await until(() => hole.accepted() > before, 'the run to reach the API server');
    const sent = Date.now();
    m.child.kill(signal);
    expect(await m.exited).toBe(0);
    expect(Date.now() - sent).toBeLessThan(HANG_GUARD_MS);
    expect(m.out.stderr.trimEnd().split('\n').at(-1)).toBe(`monitor: stopped (interrupted by ${signal})`);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('--once is a doctor run: the report on stdout and its exit code', async () => {
    const m = start(['--kubeconfig', unreachable, '--once', '-o', 'json', '--listen-address', '127.0.0.1:0']);
    expect(await m.exited).toBe(2);
    const report = parseReport(m.out.stdout) as { summary: { exitCode: number }; findings: { code: string }[] };
    expect(report.summary.exitCode).toBe(2);
    expect(report.findings.map((f) => f.code)).toContain('API001');
    // The monitor's default: the listener's checks do not run.
    expect(report.findings.map((f) => f.code).filter((c) => /^(SN|PL|PB|NP)\d/.test(c))).toEqual([]);
  });

  it('a port already taken: exit 3 at once, saying which', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const m = start(['--kubeconfig', unreachable, '--listen-address', `127.0.0.1:${port}`]);
      expect(await m.exited).toBe(3);
      expect(m.out.stderr).toMatch(new RegExp(`error: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    } finally {
      taken.close();
    }
  });
});
