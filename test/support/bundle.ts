// Running the bundle from tests: every JSON report it prints is checked against the published schema.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBundle } from '../../dev/bundle.ts';
import { collectProcess, type ProcessRun } from '../../dev/process.ts';
import { asksForJson, assertReportSchema } from './report-schema.ts';
import { inPodCommand, type PodMounts } from './pod-fs.ts';

/** What one run of the bundle produced. */
export type BundleRun = ProcessRun;

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
    if (args[0] !== 'dump' && asksForJson(args) && run.stdout.startsWith('{'))
      assertReportSchema(JSON.parse(run.stdout), `the report of doctor ${args.join(' ')}`);
    return run;
  } finally {
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  }
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
