// SIGTERM ends the process promptly, whatever the run is waiting on: a socket that never answers (an
// API server that accepted and went silent), a child that never answers (an exec credential plugin), a
// file that would never give its bytes (a FIFO nobody writes), or its own long computation (many suppression rules against many findings), which the run cuts into
// time slices so that a signal gets in. Each case: exit 4, a valid report marked incomplete, the
// termination message, nothing but the doctor's own lines on stderr.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { pollUntil } from '../../dev/poll.ts';
import { writeKubeconfig } from '../support/bundle.ts';
import { parseReport } from '../support/report-schema.ts';
import { startBlackhole, type Blackhole } from '../support/servers/blackhole.ts';
import { HANG_GUARD_MS } from '../support/timing.ts';

const scratch = mkdtempSync(join(tmpdir(), 'icd-interrupt-'));
let bundle = '';
let hole: Blackhole;

/** Backends the busy API server lists: each gets a CB001 (no Ready condition) for every rule to be tried on. */
const BACKENDS = 5_000;
/**
 * Suppression rules of CB001 that match none of them (no name holds a `z`), so each is tried on every
 * finding: 100 million tries of a name of some 230 characters, far more than the run could do before
 * the test gives up on it, unless it stops when told.
 */
const RULES = 20_000;

/** An API server that lists {@link BACKENDS} CacheBackends and empty lists of everything else. */
let busyApi: Server;
let listsAnswered = 0;

beforeAll(async () => {
  bundle = requireBundle();
  hole = await startBlackhole();
  // Long names: every rule below reads all of each name before it fails.
  const backends = Array.from({ length: BACKENDS }, (_, i) => ({
    metadata: { namespace: 'ns', name: `be-${'a'.repeat(200)}-${i}`, uid: `u${i}` },
    spec: {},
  }));
  const body = (path: string) => JSON.stringify({ kind: 'List', metadata: {}, items: path.includes('/cachebackends') ? backends : [] });
  busyApi = createServer((req, res) => {
    listsAnswered++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(body(new URL(req.url ?? '', 'http://x').pathname));
  });
  await new Promise<void>((r) => busyApi.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await hole.close();
  await new Promise<void>((r) => busyApi.close(() => r()));
});

/** Starts the bundle's doctor; `ready` says when the run is waiting on what the case makes it wait on. */
async function interruptWhile(args: readonly string[], ready: () => boolean, what: string, env: NodeJS.ProcessEnv = process.env) {
  const summary = join(scratch, `summary-${Math.random().toString(36).slice(2)}`);
  writeFileSync(summary, '');
  const child = spawn(
    process.execPath,
    [bundle, 'doctor', ...args, '-o', 'json', '--timeout', '120s', '--termination-message-path', summary],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: scratch,
      env,
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  await pollUntil(what, { timeoutMs: 60_000, intervalMs: 25 }, () => ready() || 'not yet');
  const sent = Date.now();
  child.kill('SIGTERM');
  // A run that does not end is killed, so that the test fails on its time rather than leaving it behind.
  const guard = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS);
  const code = await exited;
  clearTimeout(guard);
  return { code, stdout, stderr, elapsedMs: Date.now() - sent, summary: readFileSync(summary, 'utf8') };
}

function expectInterrupted(run: Awaited<ReturnType<typeof interruptWhile>>) {
  expect(run.code, run.stderr).toBe(4);
  expect(run.elapsedMs).toBeLessThan(HANG_GUARD_MS);
  const report = parseReport(run.stdout) as { summary: { exitCode: number; incomplete?: string } };
  expect(report.summary.exitCode).toBe(4);
  expect(report.summary.incomplete).toMatch(/^interrupted by SIGTERM/);
  expect(run.summary).toMatch(/^inferencecache doctor: exit 4 \(incomplete: interrupted by SIGTERM/);
  expect(run.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning: '))).toEqual([]);
  return report;
}

describe('SIGTERM whatever the run waits on', () => {
  it('a socket that never answers: the API server accepted and is silent', async () => {
    const before = hole.accepted();
    const run = await interruptWhile(
      ['--kubeconfig', writeKubeconfig(`https://${hole.address}`), '--config-only'],
      () => hole.accepted() > before,
      'the doctor to reach the API server',
    );
    expectInterrupted(run);
  });

  it('a child that never answers: an exec credential plugin that sleeps', async () => {
    const marker = join(scratch, 'plugin-started');
    const plugin = join(scratch, 'plugin.sh');
    writeFileSync(plugin, `#!/bin/sh\ntouch '${marker}'\nexec sleep 60\n`, { mode: 0o755 });
    const kubeconfig = join(scratch, 'exec.kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: c',
        'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]',
        `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: "${plugin}", interactiveMode: Never}}}]`,
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        '',
      ].join('\n'),
    );
    const run = await interruptWhile(['--kubeconfig', kubeconfig, '--config-only'], () => existsSync(marker), 'the plugin to start');
    expectInterrupted(run);
  });

  it('a file that would never give its bytes: the downward-API labels file is a FIFO nobody writes', async () => {
    // Read through Node's thread pool, such a file used to hold a thread that the process waits for
    // when it exits: SIGTERM printed the report and the process lived on until SIGKILL.
    const labels = join(scratch, 'labels.fifo');
    execFileSync('mkfifo', [labels]);
    const before = hole.accepted();
    const run = await interruptWhile(
      ['--kubeconfig', writeKubeconfig(`https://${hole.address}`), '--config-only', '--pod-labels-file', labels],
      () => hole.accepted() > before,
      'the doctor to reach the API server past the labels file',
      { ...process.env, POD_NAMESPACE: 'ns', POD_NAME: 'doctor' },
    );
    expectInterrupted(run);
  });

  it('its own long computation: many suppression rules against many findings keep the run busy', async () => {
    const rules = join(scratch, 'rules.yaml');
    const lines = ['suppressions:'];
    for (let i = 0; i < RULES; i++) lines.push(`- {code: CB001, resource: "*z${i}*", reason: r}`);
    writeFileSync(rules, `${lines.join('\n')}\n`);
    listsAnswered = 0;
    let answeredAt: number | undefined;
    const address = busyApi.address() as { port: number };
    // Judging 5,000 backends takes a fraction of a second; trying 20,000 rules on each of their findings
    // takes far longer. Three seconds after the last list the run is well into the rules.
    const run = await interruptWhile(
      ['--kubeconfig', writeKubeconfig(`http://127.0.0.1:${address.port}`), '--config-only', '--suppress-file', rules],
      () => {
        if (listsAnswered >= 7) answeredAt ??= Date.now();
        return answeredAt !== undefined && Date.now() - answeredAt > 3_000;
      },
      'the doctor to be applying its rules',
    );
    const report = expectInterrupted(run) as unknown as { summary: { incomplete?: string }; findings: { code: string }[] };
    // The run stopped between two slices of its suppression rules: what it judged is reported, not
    // given up for an empty report.
    expect(report.summary.incomplete).toBe('interrupted by SIGTERM');
    expect(report.findings.filter((f) => f.code === 'CB001')).toHaveLength(BACKENDS);
  });
});
