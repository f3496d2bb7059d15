// The termination summary as the built bundle writes it: where (the flag, else /dev/termination-log
// when it exists, which the process finds there as in a pod: see support/pod-fs.ts), how big (at most
// 4096 bytes even for a report of thousands of findings), and what (every FAIL code of the report).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../../dev/process.ts';
import { requireBundle } from '../../dev/bundle.ts';
import { runBundle, writeKubeconfig } from '../support/bundle.ts';
import { parseReport } from '../support/report-schema.ts';

const BACKENDS = 3_000;

interface JsonReport {
  summary: { ok: number; info: number; warn: number; fail: number; exitCode: number };
  findings: { code: string; status: string; resource?: string }[];
}

/**
 * A stand-in API server: thousands of CacheBackends with long names and no status (five WARNs each),
 * pods forbidden (API001), every other collection empty, every single object absent.
 */
function fakeApiServer(): Server {
  const backends = Array.from({ length: BACKENDS }, (_, i) => ({
    apiVersion: 'inferencecache.io/v1alpha1',
    kind: 'CacheBackend',
    metadata: { name: `backend-with-a-rather-long-name-${String(i).padStart(5, '0')}`, namespace: `team-${i % 40}`, uid: `uid-${i}` },
    spec: { engineSelector: { matchLabels: { app: `engine-${i}` } }, remoteStorage: { provider: 'Redis', ownership: 'Managed' } },
  }));
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path.endsWith('/pods'))
      return send(403, { kind: 'Status', status: 'Failure', message: 'pods is forbidden', reason: 'Forbidden', code: 403 });
    if (path === '/apis/inferencecache.io/v1alpha1/cachebackends')
      return send(200, { kind: 'CacheBackendList', metadata: {}, items: backends });
    const last = path.split('/').at(-1) ?? '';
    const collections = new Set([
      'cachebackends',
      'cachetenants',
      'cachepolicies',
      'events',
      'services',
      'nodes',
      'serviceaccounts',
      'networkpolicies',
      'namespaces',
      'secrets',
    ]);
    if (collections.has(last)) return send(200, { kind: 'List', metadata: {}, items: [] });
    return send(404, { kind: 'Status', status: 'Failure', message: `${path} not found`, reason: 'NotFound', code: 404 });
  });
}

let api: Server;
let kubeconfig = '';
let unreachable = '';
let endpoint = '';
let scratch = '';

beforeAll(async () => {
  requireBundle();
  api = fakeApiServer();
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  kubeconfig = writeKubeconfig(`http://127.0.0.1:${(api.address() as { port: number }).port}`);
  unreachable = writeKubeconfig(`https://127.0.0.1:${await closedPort()}`);
  endpoint = `127.0.0.1:${await closedPort()}`;
  scratch = mkdtempSync(join(tmpdir(), 'icd-termination-'));
});
afterAll(async () => {
  await new Promise<void>((r) => (api === undefined ? r() : api.close(() => r())));
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

/** An empty host file, for a pod to see at an in-pod path. */
function emptyFile(name: string): string {
  const file = join(mkdtempSync(join(scratch, 'pod-')), name);
  writeFileSync(file, '');
  return file;
}

const env = (extra: Record<string, string> = {}) => ({ PATH: process.env['PATH'] ?? '', ...extra });

describe('a large report', () => {
  let report: JsonReport;
  let summary = '';
  let code: number | null = null;

  beforeAll(async () => {
    const file = join(scratch, 'large-summary');
    const run = await runBundle(
      [
        'doctor',
        '--kubeconfig',
        kubeconfig,
        '-o',
        'json',
        '--server-endpoint',
        endpoint,
        '--timeout',
        '20s',
        '--termination-message-path',
        file,
      ],
      {
        env: env(),
        timeoutMs: 60_000,
      },
    );
    code = run.code;
    report = parseReport(run.stdout) as JsonReport;
    summary = readFileSync(file, 'utf8');
  }, 60_000);

  it('is large: thousands of findings', () => {
    expect(report.findings.length).toBeGreaterThan(BACKENDS);
    expect(code).toBe(2);
  });

  it('gives a summary of at most 4096 bytes of valid UTF-8', () => {
    const bytes = Buffer.from(summary, 'utf8');
    expect(bytes.length).toBeLessThanOrEqual(4096);
    expect(bytes.length).toBeGreaterThan(2048);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toBe(summary);
  });

  it('opens with the counts and exit code of the report', () => {
    const { fail, warn, info, ok, exitCode } = report.summary;
    expect(summary.split('\n')[0]).toBe(`inferencecache doctor: exit ${exitCode}; ${fail} FAIL, ${warn} WARN, ${info} INFO, ${ok} OK`);
  });

  it('names every FAIL code of the report, and every WARN code', () => {
    const codes = (status: string) => [...new Set(report.findings.filter((f) => f.status === status).map((f) => f.code))];
    expect(codes('FAIL')).toEqual(expect.arrayContaining(['API001', 'SV001']));
    for (const c of codes('FAIL')) expect(summary).toMatch(new RegExp(`^FAIL ${c} \\(\\d+\\)`, 'm'));
    for (const c of codes('WARN')) expect(summary).toMatch(new RegExp(`^WARN ${c} \\(\\d+\\)`, 'm'));
    expect(summary).toMatch(/, \+\d+ more$/m);
  });
});

describe('where the summary goes', () => {
  const args = (...more: string[]) => ['doctor', '--kubeconfig', unreachable, '--config-only', '-o', 'json', '--timeout', '5s', ...more];

  it('to /dev/termination-log when it exists (in a pod), without any flag', async () => {
    const log = emptyFile('termination-log');
    const run = await runBundle(args(), { env: env(), pod: { '/dev/termination-log': log } });
    expect(run.code).toBe(2);
    expect(readFileSync(log, 'utf8')).toMatch(/^inferencecache doctor: exit 2; \d+ FAIL, 0 WARN, 0 INFO, 0 OK\nFAIL API001 \(\d+\): /);
  });

  it('nowhere when /dev/termination-log does not exist (a workstation)', async () => {
    expect(existsSync('/dev/termination-log')).toBe(false);
    const run = await runBundle(args(), { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(/termination/);
    expect(existsSync('/dev/termination-log')).toBe(false);
  });

  it('nowhere with an empty --termination-message-path, even in a pod', async () => {
    const log = emptyFile('termination-log');
    const run = await runBundle(args('--termination-message-path', ''), { env: env(), pod: { '/dev/termination-log': log } });
    expect(run.code).toBe(2);
    expect(readFileSync(log, 'utf8')).toBe('');
  });

  it("to the flag's file rather than the default one", async () => {
    const log = emptyFile('termination-log');
    const summary = emptyFile('summary');
    await runBundle(args('--termination-message-path', '/dev/summary'), {
      env: env(),
      pod: { '/dev/termination-log': log, '/dev/summary': summary },
    });
    expect(readFileSync(summary, 'utf8')).toMatch(/^inferencecache doctor: exit 2;/);
    expect(readFileSync(log, 'utf8')).toBe('');
  });

  it('holds the error line when the doctor could not run', async () => {
    const log = emptyFile('termination-log');
    const run = await runBundle(['doctor', '--kubeconfig', '/nonexistent/kubeconfig'], {
      env: env(),
      pod: { '/dev/termination-log': log },
    });
    expect(run.code).toBe(3);
    expect(readFileSync(log, 'utf8')).toBe(run.stderr);
    expect(run.stderr).toMatch(/^error: cannot load kubeconfig/);
  });

  it('holds the usage error too, before any flag was understood', async () => {
    const log = emptyFile('termination-log');
    const run = await runBundle(['doctor', '--output', 'bogus'], { env: env(), pod: { '/dev/termination-log': log } });
    expect(run.code).toBe(3);
    expect(readFileSync(log, 'utf8')).toBe(
      'error: invalid output format "bogus" (want one of: human, json, table, junit, sarif, markdown, html)\n',
    );
  });

  it('an unwritable file is a warning: the report and exit code stand', async () => {
    const run = await runBundle(
      [
        'doctor',
        '--kubeconfig',
        unreachable,
        '--config-only',
        '-o',
        'json',
        '--timeout',
        '5s',
        '--termination-message-path',
        join(scratch, 'no/such/dir/file'),
      ],
      { env: env() },
    );
    expect(run.code).toBe(2);
    expect(parseReport(run.stdout)).toMatchObject({ summary: { exitCode: 2 } });
    expect(run.stderr).toMatch(/^warning: could not write the termination message to ".*no\/such\/dir\/file" \(ENOENT\)$/m);
  });
});
