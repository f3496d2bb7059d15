// What the process does when its surroundings misbehave: a reader that goes away (`| head -c 10`),
// SIGTERM and SIGINT in the middle of a run (the kubelet at activeDeadlineSeconds, an operator's
// Ctrl-C), a termination-message path that is a FIFO nobody reads, and a Node too old to run it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../../dev/process.ts';
import { requireBundle } from '../../dev/bundle.ts';
import { PACKAGE } from '../../dev/package.ts';
import { writeKubeconfig } from '../support/bundle.ts';
import { startBlackhole, type Blackhole } from '../support/servers/blackhole.ts';
import { HANG_GUARD_MS, expectEndedWellBefore } from '../support/timing.ts';
import { parseReport } from '../support/report-schema.ts';

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let bundle = '';
let unreachable = '';
let hole: Blackhole;
let silent = '';
const scratch = mkdtempSync(join(tmpdir(), 'icd-signals-'));

beforeAll(async () => {
  bundle = requireBundle();
  unreachable = writeKubeconfig(`https://127.0.0.1:${await closedPort()}`);
  hole = await startBlackhole();
  silent = writeKubeconfig(`https://${hole.address}`);
});
afterAll(async () => {
  await hole.close();
});

function waitFor(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = () => {
      if (condition()) resolve();
      else if (Date.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(poll, 25);
    };
    poll();
  });
}

describe('a reader that goes away', () => {
  it('ends the run quietly with the report’s exit code, no stack trace (| head -c 10)', async () => {
    const child = spawn(process.execPath, [bundle, 'doctor', '--kubeconfig', unreachable, '--config-only', '-o', 'json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: scratch,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    let head = '';
    child.stdout.once('data', (chunk: Buffer) => {
      head = chunk.subarray(0, 10).toString();
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(head).toBe('{\n  "summa');
    expect(code).toBe(2);
    expect(stderr).not.toMatch(/EPIPE|Unhandled|\bat .*\.mjs:\d+/);
  });

  it('also when the pipe is closed before the first byte', async () => {
    const child = spawn(process.execPath, [bundle, 'doctor', '--kubeconfig', unreachable, '--config-only', '-o', 'human'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: scratch,
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(stderr).toBe('');
  });
});

describe('SIGTERM and SIGINT', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s mid-run: the report so far, marked incomplete, exit 4, promptly', async (signal) => {
    const summary = join(scratch, `summary-${signal}`);
    writeFileSync(summary, '');
    const before = hole.accepted();
    const child = spawn(
      process.execPath,
      [bundle, 'doctor', '--kubeconfig', silent, '--config-only', '-o', 'json', '--timeout', '60s', '--termination-message-path', summary],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: scratch },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    // The run is under way once the API server's address has taken its connections (and never answers).
    await waitFor(() => hole.accepted() > before, 'the doctor to reach the API server');
    const sent = Date.now();
    child.kill(signal);
    const code = await exited;
    expectEndedWellBefore(Date.now() - sent, 60_000);
    expect(Date.now() - sent).toBeLessThan(HANG_GUARD_MS);
    expect(code).toBe(4);
    const report = parseReport(stdout) as {
      summary: { exitCode: number; incomplete?: string };
      findings: { code: string; message: string }[];
    };
    expect(report.summary).toMatchObject({ exitCode: 4, incomplete: `interrupted by ${signal}` });
    for (const f of report.findings) expect(f.message).toContain(`interrupted by ${signal}`);
    expect(stderr).toBe(`warning: the report is incomplete: interrupted by ${signal}\n`);
    expect(readFileSync(summary, 'utf8')).toMatch(new RegExp(`^inferencecache doctor: exit 4 \\(incomplete: interrupted by ${signal}\\);`));
  });
});

describe('the termination-message file never blocks', () => {
  it('a FIFO with no reader: the report, its exit code, and a warning', async () => {
    const fifo = join(scratch, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(
      process.execPath,
      [bundle, 'doctor', '--kubeconfig', unreachable, '--config-only', '-o', 'json', '--termination-message-path', fifo],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: scratch },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(2);
    expect(parseReport(stdout)).toMatchObject({ summary: { exitCode: 2 } });
    expect(stderr).toMatch(/^warning: could not write the termination message to ".*fifo" \(ENXIO\)$/m);
  });

  it('a directory or a device is refused, not written', async () => {
    const child = spawn(
      process.execPath,
      [bundle, 'doctor', '--kubeconfig', unreachable, '--config-only', '--termination-message-path', '/dev/null'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        cwd: scratch,
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    expect(await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))).toBe(2);
    expect(stderr).toMatch(/did not write the termination message to "\/dev\/null": it is not a regular file/);
  });
});

/** A Node older than the major package.json's engines names on PATH (outside node_modules), if the machine has one. */
function olderNode(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir.includes('node_modules')) continue;
    const node = join(dir, 'node');
    if (!existsSync(node)) continue;
    const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
    if (Number.parseInt(version.slice(1), 10) < PACKAGE.nodeMajor) return node;
  }
  return undefined;
}

describe('an older Node', () => {
  const node = olderNode();
  it.skipIf(node === undefined)(
    `one line and exit 3, nothing else loaded${node === undefined ? ` (skipped: no Node older than ${PACKAGE.nodeMajor} on PATH)` : ''}`,
    () => {
      let result: Exit;
      try {
        const stdout = execFileSync(node ?? '', [bundle, 'doctor', '--config-only'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        result = { code: 0, stdout, stderr: '' };
      } catch (err) {
        const e = err as { status: number | null; stdout: string; stderr: string };
        result = { code: e.status, stdout: e.stdout, stderr: e.stderr };
      }
      const version = execFileSync(node ?? '', ['--version'], { encoding: 'utf8' }).trim();
      expect(result).toEqual({
        code: 3,
        stdout: '',
        stderr: `inferencecache needs Node ${PACKAGE.nodeMajor} or newer (this is ${version})\n`,
      });
    },
  );
});
