/**
 * The `doctor` command once its flags are parsed: run the doctor within the interrupt's grace period,
 * put its warnings on stderr, and write the report to stdout as it is rendered. A module of its own so
 * that `--version`, `--help` and `codes` load none of it.
 *
 * @module
 */

import type { DoctorOptions } from '../cli/options.ts';
import type { RunEnvironment, RunResult } from '../doctor/environment.ts';
import { runPipeline, type OpenSource } from '../doctor/pipeline.ts';
import { makeReport, type Report } from '../report/finding.ts';
import { writerOf } from '../report/output-formats.ts';
import { forTerminal } from '../report/terminal-text.ts';
import { interruptionOf } from '../text/errors.ts';
import { runEnvironmentOf, type RunIO } from './io.ts';

/**
 * How long an interrupted run may take to finish on its own (every read and probe stops when told)
 * before the report is given up for an empty incomplete one: the kubelet's grace period must see a
 * report and an exit code, well within a second.
 */
export const INTERRUPT_GRACE_MS = 800;

/** About how much of the report goes to stdout per write. */
const WRITE_BATCH_CHARS = 64 * 1024;

/** Colour only for a terminal, and never when --no-color, NO_COLOR or TERM=dumb says otherwise. */
function wantsColor(io: RunIO, noColor: boolean): boolean {
  return !noColor && io.stdoutIsTTY && (io.env['NO_COLOR'] ?? '') === '' && io.env['TERM'] !== 'dumb';
}

/** Writes the report's pieces as they are rendered, in batches: few writes, never the whole report at once. */
async function writePieces(out: RunIO['out'], pieces: Iterable<string>): Promise<void> {
  let batch = '';
  for (const piece of pieces) {
    batch += piece;
    if (batch.length < WRITE_BATCH_CHARS) continue;
    await out(batch);
    batch = '';
  }
  if (batch !== '') await out(batch);
}

/** A report that stands for a run that did not finish within the grace period after an interrupt. */
function abandoned(interrupt: AbortSignal): RunResult {
  const why = interruptionOf(interrupt) ?? 'interrupted';
  return {
    report: makeReport([], { incomplete: `${why}; the run did not stop within ${INTERRUPT_GRACE_MS} ms, so no check was judged` }),
    warnings: [],
  };
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
 * The source of the run's objects: the files of `-f`, or the cluster. Each loads only for the runs
 * that use it (a live run never loads the manifest reader, a run from files never the API client).
 */
async function sourceOf(options: DoctorOptions, environment: RunEnvironment): Promise<OpenSource> {
  if (options.files.length > 0) {
    const { fileSource } = await import('../doctor/file-source.ts');
    return fileSource(options, environment);
  }
  const { clusterSource } = await import('../doctor/cluster-source.ts');
  return clusterSource(options, environment);
}

/** Runs the doctor, writes its warnings and report, and returns the report (for the exit code and the termination message). */
export async function runDoctorCommand(io: RunIO, options: DoctorOptions): Promise<Report> {
  const environment: RunEnvironment = {
    ...runEnvironmentOf(io),
    ...(io.stdin === undefined ? {} : { stdin: io.stdin }),
    ...(options.quiet ? {} : { progress: (line: string) => io.err(`${forTerminal(line).toString()}\n`) }),
  };
  const run = sourceOf(options, environment).then((open) => runPipeline(options, environment, open));
  const { report, warnings } = await withinGrace(run, io.interrupt);
  for (const warning of warnings) await io.err(`warning: ${forTerminal(warning).toString()}\n`);
  const { incomplete } = report.summary;
  if (incomplete !== undefined) await io.err(`warning: the report is incomplete: ${forTerminal(incomplete).toString()}\n`);
  const color = options.output === 'human' && wantsColor(io, options.noColor);
  const write = await writerOf('doctor', options.output);
  await writePieces(io.out, write(report, { color, outputThreshold: options.outputThreshold, showOk: options.showOk }));
  return report;
}
