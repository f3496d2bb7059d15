/**
 * One start of one container: a local process in its own process group and its own mount namespace
 * (its volumes at their in-pod paths), stdout and stderr written to a CRI log file, and on exit the facts a runtime reports (exit code, 128+signal when killed, times)
 * plus the termination message, read the way the kubelet reads it.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { inPodCommand, type PodMounts } from '../pod-fs.ts';
import { CriLogWriter, readLogTail } from './cri-log.ts';
import { nowRfc3339 } from './types.ts';

/** Bytes of the termination-message file the kubelet keeps (its tail). */
export const MAX_TERMINATION_MESSAGE_BYTES = 4096;
/** FallbackToLogsOnError: at most this many last log lines, */
export const MAX_TERMINATION_LOG_LINES = 80;
/** and at most this many bytes of them. */
export const MAX_TERMINATION_LOG_BYTES = 2048;

/** How a container start ended. */
export interface ContainerExit {
  readonly exitCode: number;
  readonly signal?: number;
  /** `Completed`, `Error`, or `StartError` when the process could not be started. */
  readonly reason: 'Completed' | 'Error' | 'StartError';
  readonly message: string;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** What to run. */
export interface ContainerSpec {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly logFile: string;
  /** In-pod path → host path: the volume mounts and the termination-message file. */
  readonly mounts: PodMounts;
  /** Where the process's private mount namespace keeps its overlays. */
  readonly podFsDir: string;
  /** Host path of the termination-message file. */
  readonly terminationLog: string;
  readonly fallbackToLogsOnError: boolean;
}

/** A started container. */
export interface RunningContainer {
  readonly pid: number | undefined;
  readonly containerID: string;
  readonly startedAt: string;
  readonly exited: Promise<ContainerExit>;
  /** True until the process is gone and its log closed. */
  readonly alive: () => boolean;
  /** Signals the whole process group. */
  signal(sig: NodeJS.Signals): void;
}

/** The tail of the termination-message file, as the kubelet reads it. */
function readTerminationFile(file: string): string {
  try {
    const data = fs.readFileSync(file);
    return data.subarray(Math.max(0, data.length - MAX_TERMINATION_MESSAGE_BYTES)).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    return `Error on reading termination log ${file}: ${(err as Error).message}`;
  }
}

function signalNumber(name: NodeJS.Signals | null): number | undefined {
  return name === null ? undefined : os.constants.signals[name];
}

/** Starts the process. Never throws: a failed start is a `StartError` exit. */
export function startContainer(spec: ContainerSpec): RunningContainer {
  const containerID = `standin://${randomBytes(32).toString('hex')}`;
  const startedAt = nowRfc3339();
  const log = new CriLogWriter(spec.logFile);
  let alive = true;
  let argv: string[];
  try {
    argv = inPodCommand(spec.mounts, spec.podFsDir, spec.argv);
  } catch (err) {
    argv = ['/nonexistent/pod-fs-unavailable'];
    log.write('stderr', Buffer.from(`${(err as Error).message}\n`));
  }
  const [program, ...args] = argv;
  const child = spawn(program ?? '', args, {
    cwd: spec.cwd,
    env: { ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (c: Buffer) => log.write('stdout', c));
  child.stderr?.on('data', (c: Buffer) => log.write('stderr', c));

  const exited = new Promise<ContainerExit>((resolve) => {
    let startError: Error | undefined;
    child.once('error', (err) => {
      startError = err;
    });
    child.once('close', (code, sig) => {
      void log.close().then(() => {
        alive = false;
        const finishedAt = nowRfc3339();
        if (startError !== undefined) {
          resolve({
            exitCode: 128,
            reason: 'StartError',
            message: `failed to start container process: ${startError.message}`,
            startedAt,
            finishedAt,
          });
          return;
        }
        const signal = signalNumber(sig);
        const exitCode = code ?? 128 + (signal ?? 0);
        let message = readTerminationFile(spec.terminationLog);
        if (message === '' && spec.fallbackToLogsOnError && exitCode !== 0) {
          message = readLogTail(spec.logFile, MAX_TERMINATION_LOG_LINES, MAX_TERMINATION_LOG_BYTES);
        }
        resolve({
          exitCode,
          ...(signal === undefined ? {} : { signal }),
          reason: exitCode === 0 ? 'Completed' : 'Error',
          message,
          startedAt,
          finishedAt,
        });
      });
    });
  });

  return {
    pid: child.pid,
    containerID,
    startedAt,
    exited,
    alive: () => alive,
    signal(sig) {
      if (child.pid === undefined || !alive) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        try {
          child.kill(sig);
        } catch {
          /* already gone */
        }
      }
    },
  };
}
