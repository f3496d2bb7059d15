/**
 * Child processes and loopback ports for the development tools.
 *
 * @module
 */
import { spawn, type SpawnOptions, type SpawnSyncReturns } from 'node:child_process';
import { createServer } from 'node:net';

/** What one run of a process produced. */
export interface ProcessRun {
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
): Promise<ProcessRun> {
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
 * Why a synchronous child process failed, for an error message: what it wrote on stderr, else why it
 * could not start, else its exit code or that a signal ended it.
 */
export function spawnFailure(result: SpawnSyncReturns<string>): string {
  return result.stderr || result.error?.message || `exit ${result.status ?? 'by a signal'}`;
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
