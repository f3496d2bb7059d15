/**
 * promtool, Debian's `prometheus` package's checker: `check metrics` lints an exposition by the
 * Prometheus conventions, `check rules` and `test rules` the alert rules. Absent, the suites that use
 * it skip with the reason, never under CI.
 */
import { spawnSync } from 'node:child_process';

/**
 * The skip reason, or '' when `command` (a program of Debian's `prometheus` package: `promtool`,
 * `prometheus`) runs. Throws under CI, where it must.
 */
export function prometheusPackageMissing(command: 'promtool' | 'prometheus'): string {
  const probe = spawnSync(command, ['--version'], { encoding: 'utf8' });
  if (probe.error === undefined && probe.status === 0) return '';
  const why = probe.error?.message ?? `${command} --version exited ${String(probe.status)}`;
  if (process.env['CI'] === 'true') throw new Error(`${command} must run under CI (apt-get install prometheus): ${why}`);
  return `${command} is not installed (apt-get install prometheus)`;
}

/** The skip reason, or '' when promtool runs. Throws under CI, where it must. */
export function promtoolMissing(): string {
  return prometheusPackageMissing('promtool');
}

/** promtool with `args`, `input` on its stdin: its exit code and everything it wrote. */
export function promtool(args: readonly string[], input?: string): { code: number | null; output: string } {
  const run = spawnSync('promtool', [...args], { input, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}
