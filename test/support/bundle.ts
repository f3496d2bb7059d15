import { asksForJson, assertReportSchema } from './report-schema.ts';
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inPodCommand, type PodMounts } from './pod-fs.ts';

/** The bundle `npm run build` writes; process tests run it the way users and the image do. */
export const BUNDLE = resolve(import.meta.dirname, '../../dist/inferencecache.mjs');

const ROOT = resolve(import.meta.dirname, '../..');

/** Whether the bundle is missing or older than a file it is built from. */
export function bundleIsStale(): boolean {
  if (!existsSync(BUNDLE)) return true;
  const built = statSync(BUNDLE).mtimeMs;
  const sources = readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
  return [
    ...sources,
    join(ROOT, 'package.json'),
    join(ROOT, 'package-lock.json'),
    join(ROOT, 'scripts/build.mjs'),
    join(ROOT, 'scripts/bundle/loader.mjs'),
  ].some((file) => statSync(file).mtimeMs > built);
}

/** Builds the bundle (`npm run build`) unless it is up to date; throws with esbuild's output when the build fails. */
export function ensureBundle(): void {
  if (!bundleIsStale()) return;
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`building the bundle failed: ${result.stderr || result.error?.message || `exit ${result.status ?? 'by a signal'}`}`);
}

/** Fails with a clear message when the bundle has not been built. */
export function requireBundle(): string {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first (npm test does)`);
  return BUNDLE;
}

/** What one run of the bundle produced. */
export interface BundleRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly elapsedMs: number;
}

/** Spawns a process, collects its output, and kills it after `timeoutMs` (default 60 s). */
export function collectProcess(
  command: string,
  args: readonly string[],
  opts: SpawnOptions & { timeoutMs?: number | undefined },
): Promise<BundleRun> {
  const started = Date.now();
  const { timeoutMs, ...spawnOpts } = opts;
  return new Promise((done, fail) => {
    const child = spawn(command, [...args], { ...spawnOpts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs ?? 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, elapsedMs: Date.now() - started });
    });
  });
}

/**
 * Runs the bundle with Node (the one running the tests: 24 under npm) and collects its output. With
 * `pod`, the process finds those host files at their in-pod paths, as in a pod (see pod-fs.ts).
 */
export async function runBundle(
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; command?: readonly string[]; timeoutMs?: number; pod?: PodMounts } = {},
): Promise<BundleRun> {
  const command = [...(opts.command ?? [process.execPath, requireBundle()]), ...args];
  const workDir = opts.pod === undefined ? undefined : mkdtempSync(join(tmpdir(), 'icd-podfs-'));
  const [cmd, ...rest] = workDir === undefined || opts.pod === undefined ? command : inPodCommand(opts.pod, workDir, command);
  try {
    const run = await collectProcess(cmd as string, rest, {
      env: opts.env ?? { PATH: process.env['PATH'] ?? '' },
      cwd: opts.cwd ?? tmpdir(),
      timeoutMs: opts.timeoutMs,
    });
    // Every JSON report the bundle prints must satisfy the published schema.
    if (asksForJson(args) && run.stdout.startsWith('{'))
      assertReportSchema(JSON.parse(run.stdout), `the report of doctor ${args.join(' ')}`);
    return run;
  } finally {
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  }
}

/** A loopback port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise<void>((r) => server.close(() => r()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Writes a kubeconfig for `server` with a bearer token and no CA check, and returns its path. */
export function writeKubeconfig(server: string, extra: { context?: string } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'icd-kubeconfig-'));
  const file = join(dir, 'config');
  const context = extra.context ?? 'test';
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `current-context: ${context}`,
      'clusters:',
      '- name: test',
      '  cluster:',
      `    server: ${server}`,
      '    insecure-skip-tls-verify: true',
      'users:',
      '- name: test',
      '  user:',
      '    token: not-a-real-token',
      'contexts:',
      `- name: ${context}`,
      '  context:',
      '    cluster: test',
      '    user: test',
      '',
    ].join('\n'),
  );
  return file;
}
