/**
 * The `monitor` command once its flags are parsed: with `--once`, one doctor run of the monitor's
 * options, reported as `doctor` reports it; otherwise the monitor, each of its runs a doctor run
 * against the cluster (the kubeconfig loaded afresh each time, so a rotated token or certificate is
 * picked up), until SIGTERM or SIGINT.
 *
 * @module
 */

import { CHECKS, activeDeclarations } from '../checks/registry.ts';
import { SUPPRESSIONS } from '../checks/suppressions.ts';
import type { MonitorOptions } from '../cli/options.ts';
import { UsageError } from '../cli/options.ts';
import { KubeConfigError } from '../cluster/transport/kubeconfig-error.ts';
import { clusterSource } from '../doctor/cluster-source.ts';
import type { RunEnvironment, RunObserver } from '../doctor/environment.ts';
import { runPipeline } from '../doctor/pipeline.ts';
import { InputError } from '../files/input-error.ts';
import { ListenError } from '../monitor/http-endpoint.ts';
import { runMonitor, type RunOutcome } from '../monitor/monitor.ts';
import { EXIT_CODES, type ExitCode } from '../report/exit-codes.ts';
import { forTerminal } from '../report/terminal-text.ts';
import { describeError } from '../text/errors.ts';
import { COMMIT, VERSION } from '../version.ts';
import { runDoctorCommand } from './doctor.ts';
import { runEnvironmentOf, type RunIO } from './io.ts';

/** One doctor run of the monitor's options against the cluster; a run that cannot start is an outcome too. */
async function runOnce(io: RunIO, options: MonitorOptions, observer: RunObserver): Promise<RunOutcome> {
  const environment: RunEnvironment = { ...runEnvironmentOf(io), observer };
  try {
    return { kind: 'report', result: await runPipeline(options.run, environment, clusterSource(options.run, environment)) };
  } catch (err) {
    const known = err instanceof UsageError || err instanceof KubeConfigError || err instanceof InputError;
    return { kind: 'error', error: known ? describeError(err) : `unexpected failure: ${describeError(err)}` };
  }
}

/** Runs the monitor (or, with `--once`, one doctor run) and returns the exit code. */
export async function runMonitorCommand(io: RunIO, options: MonitorOptions): Promise<ExitCode> {
  if (options.once) return (await runDoctorCommand(io, options.run)).summary.exitCode;
  const log = (line: string) => io.err(`${forTerminal(line).toString()}\n`);
  try {
    await runMonitor(options, {
      run: (observer) => runOnce(io, options, observer),
      clock: io.clock,
      random: Math.random,
      interrupt: io.interrupt,
      log,
      version: VERSION,
      commit: COMMIT,
      active: activeDeclarations(options.run, [...CHECKS, SUPPRESSIONS]),
    });
  } catch (err) {
    if (!(err instanceof ListenError)) throw err;
    await log(`error: ${err.message}`);
    return EXIT_CODES.couldNotRun;
  }
  return EXIT_CODES.healthy;
}
