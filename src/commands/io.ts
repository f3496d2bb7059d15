/**
 * What the process gives a command: `main.ts` builds it from `process` (nothing else touches
 * `process`); the commands write through it.
 *
 * @module
 */

import type { PodFiles, RunEnvironment } from '../doctor/environment.ts';

/**
 * What the process gives a command run. Writing resolves once the text is written, or at once when
 * the reader has gone (a closed pipe).
 */
export interface RunIO {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdoutIsTTY: boolean;
  readonly out: (text: string) => Promise<void>;
  readonly err: (text: string) => Promise<void>;
  /**
   * Why writing to stdout failed (a full disk, a closed pipe), once it has; undefined while it has not,
   * and where the caller cannot tell (tests that collect the text).
   */
  readonly outError?: () => string | undefined;
  /** The run's one clock (see `RunEnvironment.clock`). */
  readonly clock: () => Date;
  /** When the process started (see `RunEnvironment.started`). */
  readonly started?: Date;
  /** The files a pod gives the doctor, at their in-pod paths. */
  readonly files: PodFiles;
  /** Aborted, with an `Interrupted` reason, on SIGTERM or SIGINT. */
  readonly interrupt: AbortSignal;
  /** Standard input, read only for `doctor -f -`. */
  readonly stdin?: AsyncIterable<Uint8Array>;
  /** A full garbage collection, where the process can make one (see `RunEnvironment.collectGarbage`). */
  readonly collectGarbage?: () => void;
}

/**
 * What every run of the doctor's pipeline takes from the process: its environment, clock, pod files
 * and interrupt; the command adds what is its own (standard input, progress lines, an observer).
 */
export function runEnvironmentOf(io: RunIO): RunEnvironment {
  return {
    env: io.env,
    clock: io.clock,
    ...(io.started === undefined ? {} : { started: io.started }),
    pod: { namespace: io.env['POD_NAMESPACE'], name: io.env['POD_NAME'] },
    files: io.files,
    interrupt: io.interrupt,
    ...(io.collectGarbage === undefined ? {} : { collectGarbage: io.collectGarbage }),
  };
}
