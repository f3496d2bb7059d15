/**
 * The monitor: the doctor's runs one after the other on a schedule, the last completed one kept and
 * served as metrics with the monitor's counters, and its health answered. A run never overlaps the
 * next: the next is scheduled only once one has ended, an interval (give or take the jitter) after it
 * started, or at once when it outlasted the interval. Told to stop, it stops serving and returns
 * within a second, giving up the run under way.
 *
 * @module
 */

import type { MonitorOptions } from '../cli/options.ts';
import type { RunObserver, RunResult } from '../doctor/environment.ts';
import { CONTENT_TYPES, expose, negotiate } from '../metrics/exposition.ts';
import { pause } from '../probes/deadline.ts';
import { describeError, interruptionOf } from '../text/errors.ts';
import { monitorFamilies, type FamilyContext } from './families.ts';
import { runSeries } from './series.ts';
import { liveness, readiness, type HealthFacts } from './health.ts';
import { serveEndpoint, type Answer, type Endpoint } from './http-endpoint.ts';
import { Telemetry } from './telemetry.ts';

/** How far each interval is drawn either way, so that many monitors do not ask the API server in step. */
export const JITTER = 0.1;

/** How long a stopping monitor waits for the run under way to end on its own before it gives it up. */
export const STOP_GRACE_MS = 500;

/** The time from one run's start to the next's: `intervalMs` drawn {@link JITTER} either way by `random` in [0, 1). */
export function nextStartAfter(intervalMs: number, random: () => number): number {
  return Math.round(intervalMs * (1 + JITTER * (2 * random() - 1)));
}

/** How one run ended: with a report, or without one (it could not start: exit 3), and why. */
export type RunOutcome = { readonly kind: 'report'; readonly result: RunResult } | { readonly kind: 'error'; readonly error: string };

/** What the monitor needs from its surroundings; the command gives the real ones, tests their own. */
export interface MonitorEnvironment {
  /** One doctor run, telling `observer` what it asks and probes, stopping when `interrupt` is aborted. */
  readonly run: (observer: RunObserver) => Promise<RunOutcome>;
  readonly clock: () => Date;
  /** In [0, 1), for the jitter. */
  readonly random: () => number;
  /** Aborted when the monitor must stop. */
  readonly interrupt: AbortSignal;
  /** One line for the log (stderr). */
  readonly log: (line: string) => Promise<void>;
  /** Told the address once serving (tests listen on port 0). */
  readonly serving?: (endpoint: Endpoint) => void;
  readonly version: string;
  readonly commit: string;
  /** The declarations every run judges with (their codes get a 0 series when not found). */
  readonly active: FamilyContext['active'];
}

/** `FAIL 2, WARN 1` of a report's summary, or `nothing to report`. */
function counts(result: RunResult): string {
  const { fail, warn, info, ok } = result.report.summary;
  return `FAIL ${fail}, WARN ${warn}, INFO ${info}, OK ${ok}`;
}

/** A plain-text answer. */
function text(status: number, body: string): Answer {
  return { status, contentType: 'text/plain; charset=utf-8', body: `${body}\n` };
}

/**
 * Runs the monitor until `environment.interrupt` is aborted; then stops serving and resolves.
 *
 * @throws ListenError when it cannot listen (nothing has run).
 */
export async function runMonitor(options: MonitorOptions, environment: MonitorEnvironment): Promise<void> {
  const { clock, interrupt, log } = environment;
  const telemetry = new Telemetry();
  const startedAt = clock();
  const context: FamilyContext = {
    version: environment.version,
    commit: environment.commit,
    startedAt,
    intervalMs: options.intervalMs,
    active: environment.active,
    resourceSeries: options.resourceSeries,
  };
  const common = options.cluster === '' ? {} : { cluster: options.cluster };
  let stopping = false;
  const facts = (): HealthFacts => ({
    startedAtMs: startedAt.getTime(),
    lastCompletedMs: telemetry.last?.endedAt.getTime(),
    intervalMs: options.intervalMs,
    timeoutMs: options.run.timeoutMs,
    stopping,
  });
  const endpoint = await serveEndpoint(options.listen, {
    metrics: (accept) => {
      const format = negotiate(accept);
      return { status: 200, contentType: CONTENT_TYPES[format], body: expose(monitorFamilies(telemetry, context), format, common) };
    },
    healthz: () => {
      const { ok, text: why } = liveness(facts(), clock().getTime());
      return text(ok ? 200 : 503, why);
    },
    readyz: () => {
      const { ok, text: why } = readiness(facts());
      return text(ok ? 200 : 503, why);
    },
  });
  environment.serving?.(endpoint);
  const where = `${options.listen.host === '' ? '' : options.listen.host}:${endpoint.address.port}`;
  await log(`monitor: serving /metrics, /healthz and /readyz on ${where}; a run about every ${options.intervalMs / 1000}s`);

  const loop = async () => {
    for (let n = 1; !interrupt.aborted; n++) {
      const start = clock();
      const began = performance.now();
      const outcome = await environment.run(telemetry.observer);
      const seconds = (performance.now() - began) / 1000;
      // Told to stop while it ran: its report, cut short, is not the cluster's state.
      if (interruptionOf(interrupt) !== undefined) break;
      if (outcome.kind === 'error') {
        telemetry.failed(seconds);
        await log(`monitor: run ${n} could not run: ${outcome.error}`);
      } else {
        for (const warning of outcome.result.warnings) await log(`monitor: run ${n}: warning: ${warning}`);
        telemetry.completed({ series: runSeries(outcome.result.report, context), endedAt: clock(), seconds });
        const { exitCode } = outcome.result.report.summary;
        await log(`monitor: run ${n}: exit ${exitCode} (${counts(outcome.result)}) in ${seconds.toFixed(1)}s`);
      }
      const wait = nextStartAfter(options.intervalMs, environment.random) - (clock().getTime() - start.getTime());
      await pause(Math.max(0, wait), interrupt);
    }
  };
  const stopped = new Promise<void>((resolve) => {
    if (interrupt.aborted) resolve();
    else interrupt.addEventListener('abort', () => resolve(), { once: true });
  });
  // The loop ends on its own once interrupted; a run that does not stop soon enough is given up.
  const looping = loop().catch((err: unknown) =>
    // A bug, not a fact about the cluster: said once; /healthz then fails after two intervals and the
    // kubelet restarts the monitor, rather than it serving stale series that look fresh.
    log(`monitor: error: the schedule stopped on an unexpected failure: ${describeError(err)}`),
  );
  await stopped;
  stopping = true;
  await Promise.race([looping, pause(STOP_GRACE_MS, undefined)]);
  await endpoint.close();
  await log(`monitor: stopped (${interruptionOf(interrupt) ?? 'told to stop'})`);
}
