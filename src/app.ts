import { closeSync, constants, existsSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { codeTable } from './checks/codes.ts';
import { UsageError } from './cli/options.ts';
import { parseCommandLine } from './cli/parse.ts';
import { KubeConfigError } from './cluster/kubeconfig-error.ts';
import type { PodFiles, RunResult } from './doctor.ts';
import { renderCodeTable } from './report/code-table.ts';
import { makeReport } from './report/finding.ts';
import { render } from './report/render/index.ts';
import { forTerminal } from './report/terminal-text.ts';
import { terminationSummary } from './report/termination-summary.ts';
import { describeError, fileErrorReason, interruptionOf } from './text/errors.ts';
import { COMMIT, VERSION } from './version.ts';

/** Exit code for "the doctor could not run": bad flags, no usable kubeconfig, unknown context. */
export const EXIT_COULD_NOT_RUN = 3;

/**
 * How long an interrupted run may take to finish on its own (every read and probe stops when told)
 * before the report is given up for an empty incomplete one: the kubelet's grace period must see a
 * report and an exit code, well within a second.
 */
export const INTERRUPT_GRACE_MS = 800;

/**
 * What the process gives a run. `main.ts` builds it from `process`; nothing else touches `process`.
 * Writing resolves once the text is written, or at once when the reader has gone (a closed pipe).
 */
export interface ProcessIO {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdoutIsTTY: boolean;
  readonly out: (text: string) => Promise<void>;
  readonly err: (text: string) => Promise<void>;
  readonly now: () => Date;
  /** The files a pod gives the doctor, at their in-pod paths. */
  readonly files: PodFiles;
  /** Aborted, with an `Interrupted` reason, on SIGTERM or SIGINT. */
  readonly interrupt: AbortSignal;
}

/** Colour only for a terminal, and never when --no-color, NO_COLOR or TERM=dumb says otherwise. */
function wantsColor(io: ProcessIO, noColor: boolean): boolean {
  return !noColor && io.stdoutIsTTY && (io.env['NO_COLOR'] ?? '') === '' && io.env['TERM'] !== 'dumb';
}

/**
 * Writes the termination message, never blocking: only to a regular file (or a new one), opened
 * without waiting for a reader, so that a FIFO or a device named by the flag cannot hold the run.
 * Returns a warning when it could not.
 */
function writeTerminationFile(file: string, text: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOCTTY, 0o644);
  } catch (err) {
    return `could not write the termination message to ${JSON.stringify(file)} (${fileErrorReason(err)})`;
  }
  try {
    if (!fstatSync(fd).isFile()) return `did not write the termination message to ${JSON.stringify(file)}: it is not a regular file`;
    ftruncateSync(fd, 0);
    writeSync(fd, text);
    return undefined;
  } catch (err) {
    return `could not write the termination message to ${JSON.stringify(file)} (${fileErrorReason(err)})`;
  } finally {
    closeSync(fd);
  }
}

/** A report that stands for a run that did not finish within the grace period after an interrupt. */
function abandoned(interrupt: AbortSignal): RunResult {
  const why = interruptionOf(interrupt) ?? 'interrupted';
  return { report: makeReport([], `${why}; the run did not stop within ${INTERRUPT_GRACE_MS} ms, so no check was judged`), warnings: [] };
}

/** Resolves with `run`, or, once interrupted, with an empty incomplete report if `run` takes too long. */
function withinGrace(run: Promise<RunResult>, interrupt: AbortSignal): Promise<RunResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const giveUp = new Promise<RunResult>((resolve) => {
    const start = () => {
      timer = setTimeout(() => resolve(abandoned(interrupt)), INTERRUPT_GRACE_MS);
    };
    if (interrupt.aborted) start();
    else interrupt.addEventListener('abort', start, { once: true });
  });
  return Promise.race([run, giveUp]).finally(() => clearTimeout(timer));
}

/**
 * One invocation: parse the command line, run the command, write the output and, for `doctor`, the
 * termination message. Returns the exit code: the report's (0, 1, 2, or 4 when interrupted), or 3 when
 * the doctor could not run. Every text that may come from the cluster is escaped before it reaches
 * stderr, as the renderers escape stdout.
 */
export async function runApp(io: ProcessIO): Promise<number> {
  /** `--termination-message-path` once the flags are parsed; until then the kubelet's file when it exists. */
  let terminationFlag: string | undefined;
  const terminationFile = (): string | undefined => {
    if (terminationFlag !== undefined) return terminationFlag === '' ? undefined : terminationFlag;
    return existsSync(io.files.terminationLog) ? io.files.terminationLog : undefined;
  };
  const terminate = async (text: string): Promise<void> => {
    const file = terminationFile();
    const warning = file === undefined ? undefined : writeTerminationFile(file, text);
    if (warning !== undefined) await io.err(`warning: ${forTerminal(warning).toString()}\n`);
  };

  try {
    const command = parseCommandLine(io.argv);
    switch (command.kind) {
      case 'help':
        await io.out(command.text);
        return 0;
      case 'version':
        await io.out(`inferencecache version ${VERSION} (commit ${COMMIT})\n`);
        return 0;
      case 'codes':
        await io.out(renderCodeTable(codeTable(), command.output));
        return 0;
      case 'doctor':
        break;
    }
    const { options } = command;
    terminationFlag = options.terminationMessagePath;
    // The Kubernetes, gRPC and HTTP clients load only now: --version, --help and codes never need them.
    const { runDoctor } = await import('./doctor.ts');
    const run = runDoctor(options, {
      env: io.env,
      now: io.now,
      pod: { namespace: io.env['POD_NAMESPACE'], name: io.env['POD_NAME'] },
      files: io.files,
      interrupt: io.interrupt,
    });
    const { report, warnings } = await withinGrace(run, io.interrupt);
    for (const warning of warnings) await io.err(`warning: ${forTerminal(warning).toString()}\n`);
    const { incomplete } = report.summary;
    if (incomplete !== undefined) await io.err(`warning: the report is incomplete: ${forTerminal(incomplete).toString()}\n`);
    await io.out(render(report, options.output, { color: options.output === 'human' && wantsColor(io, options.noColor) }));
    await terminate(terminationSummary(report));
    return report.summary.exitCode;
  } catch (err) {
    const known = err instanceof UsageError || err instanceof KubeConfigError;
    const text = describeError(err);
    const line = `error: ${forTerminal(known ? text : `unexpected failure: ${text}`).toString()}\n`;
    await io.err(line);
    await terminate(line);
    return EXIT_COULD_NOT_RUN;
  }
}
