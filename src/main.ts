/**
 * The entry point, and the only module that touches `process`: it checks the Node version before
 * anything else loads, turns SIGTERM and SIGINT into an interrupt of the run, keeps a closed stdout
 * (`| head`) from ending the run with a stack trace, keeps Node's own warnings off stderr, and exits
 * with the run's code.
 *
 * @module
 */

import type { ProcessIO } from './app.ts';
import type { PodFiles } from './doctor/environment.ts';
import { collectGarbage } from './full-collection.ts';
import { EXIT_CODES, type ExitCode } from './report/exit-codes.ts';
import { Interrupted, describeError } from './text/errors.ts';

declare const __INFERENCECACHE_NODE_MAJOR__: number | undefined;

/**
 * The Node major the bundle is built for (the image's runtime); older ones lack what it uses. The
 * bundler sets it from package.json's `engines.node`, the one place the major is written; run from
 * source, there is none and nothing is checked.
 */
const MINIMUM_NODE_MAJOR: number | undefined =
  typeof __INFERENCECACHE_NODE_MAJOR__ === 'number' ? __INFERENCECACHE_NODE_MAJOR__ : undefined;

/**
 * The files a pod gives the doctor, at the paths the kubelet mounts them: the ServiceAccount's token
 * and CA, the projected controller-audience token, the downward-API labels, the termination log.
 */
const IN_POD: PodFiles = {
  serviceAccountDir: '/var/run/secrets/kubernetes.io/serviceaccount',
  controllerToken: '/var/run/secrets/inferencecache.io/controller-token/token',
  podLabels: '/etc/podinfo/labels',
  terminationLog: '/dev/termination-log',
};

/** A stream's writer, and why writing to it failed once it has. */
interface StreamWriter {
  readonly write: (text: string) => Promise<void>;
  readonly failure: () => string | undefined;
}

/**
 * A writer that resolves once `stream` took the text, and at once after its reader has gone (EPIPE)
 * or a write failed (ENOSPC on `> /dev/full`): the failure is kept for the command to report.
 */
function writerFor(stream: NodeJS.WriteStream): StreamWriter {
  let failed: string | undefined;
  const fail = (err: NodeJS.ErrnoException) => {
    failed ??= err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED' ? 'the reader closed the pipe' : describeError(err);
  };
  stream.on('error', fail);
  const write = (text: string) =>
    new Promise<void>((resolve) => {
      if (failed !== undefined || stream.destroyed) {
        resolve();
        return;
      }
      stream.write(text, (err) => {
        if (err !== null && err !== undefined) fail(err);
        resolve();
      });
    });
  return { write, failure: () => failed };
}

async function start(): Promise<ExitCode> {
  // Node prints every warning that it or a library raises (deprecations, experimental features) on
  // stderr, which in a pod is the log that holds the JSON report. Such a warning is advice for the
  // doctor's developers, not a fact about the cluster, and has nowhere else to go: it is dropped.
  process.removeAllListeners('warning');
  const major = Number.parseInt(process.versions.node, 10);
  if (MINIMUM_NODE_MAJOR !== undefined && !(major >= MINIMUM_NODE_MAJOR)) {
    process.stderr.write(`inferencecache needs Node ${MINIMUM_NODE_MAJOR} or newer (this is v${process.versions.node})\n`);
    return EXIT_CODES.couldNotRun;
  }
  const interrupt = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => interrupt.abort(new Interrupted(`interrupted by ${signal}`)));
  }
  // Everything else loads only now, on a Node that can run it.
  const { runApp } = await import('./app.ts');
  const stdout = writerFor(process.stdout);
  const io: ProcessIO = {
    argv: process.argv.slice(2),
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    out: stdout.write,
    outError: stdout.failure,
    err: writerFor(process.stderr).write,
    clock: () => new Date(),
    started: new Date(performance.timeOrigin),
    files: IN_POD,
    interrupt: interrupt.signal,
    stdin: process.stdin,
    collectGarbage: () => collectGarbage(),
  };
  return runApp(io);
}

start().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: unexpected failure: ${describeError(err)}\n`);
    process.exit(EXIT_CODES.couldNotRun);
  },
);
