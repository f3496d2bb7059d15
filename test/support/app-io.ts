// The process a test gives the app (`runApp`): the arguments, an empty environment, stdout and stderr
// collected as text, a clock, pod files that do not exist, and an interrupt that never fires; anything
// else the test sets.
import type { ProcessIO } from '../../src/app.ts';

/** What a test's app run was given, and what it wrote. */
export interface CollectingIO {
  readonly io: ProcessIO;
  readonly stdout: () => string;
  readonly stderr: () => string;
}

/** A process for `runApp` with `argv`, collecting what it writes; `extra` adds or replaces fields. */
export function collectingIO(argv: readonly string[], extra: Partial<ProcessIO> = {}): CollectingIO {
  let stdout = '';
  let stderr = '';
  const io: ProcessIO = {
    argv,
    env: {},
    stdoutIsTTY: false,
    out: (text) => {
      stdout += text;
      return Promise.resolve();
    },
    err: (text) => {
      stderr += text;
      return Promise.resolve();
    },
    clock: () => new Date(),
    files: {
      serviceAccountDir: '/nonexistent',
      controllerToken: '/nonexistent',
      podLabels: '/nonexistent',
      terminationLog: '/nonexistent',
    },
    interrupt: new AbortController().signal,
    ...extra,
  };
  return { io, stdout: () => stdout, stderr: () => stderr };
}
