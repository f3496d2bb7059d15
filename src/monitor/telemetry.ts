/**
 * What the monitor counts across its runs: the runs by exit code and how long each took, the API
 * server requests and their errors, the probes' times; and the finding series of the last completed
 * run.
 *
 * @module
 */

import type { RunObserver } from '../doctor/environment.ts';
import { METRICS } from '../metrics/catalogue.ts';
import { Counter, Histogram } from '../metrics/instruments.ts';
import type { RunSeries } from './series.ts';

/** The buckets of a run's duration, in seconds: a small install takes well under a second, 100,000 pods about a minute. */
export const RUN_BOUNDS = [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** The buckets of a probe's duration, in seconds: a local answer in milliseconds, a black hole at the 10 s probe budget. */
export const PROBE_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A run that completed: the series of its report, when it ended and how long it took. */
export interface CompletedRun {
  readonly series: RunSeries;
  readonly endedAt: Date;
  readonly seconds: number;
}

/** The monitor's counts since it started, and its last completed run. */
export class Telemetry {
  readonly runs = new Counter(METRICS.runs.name, METRICS.runs.help);
  readonly runDuration = new Histogram(METRICS.runDuration.name, METRICS.runDuration.help, RUN_BOUNDS);
  readonly apiRequests = new Counter(METRICS.apiRequests.name, METRICS.apiRequests.help);
  readonly apiErrors = new Counter(METRICS.apiErrors.name, METRICS.apiErrors.help);
  readonly probeDuration = new Histogram(METRICS.probeDuration.name, METRICS.probeDuration.help, PROBE_BOUNDS);
  /** The last run that completed; undefined until one has. */
  last: CompletedRun | undefined;

  constructor() {
    // Each series exists from the start, so that a rate over them is defined before the first error.
    this.apiRequests.touch({});
    this.apiErrors.touch({});
  }

  /** What each run tells the counters (see `RunObserver`). */
  readonly observer: RunObserver = {
    api: (requests, errors) => {
      this.apiRequests.add({}, requests);
      this.apiErrors.add({}, errors);
    },
    probe: (probe, seconds) => this.probeDuration.observe({ probe }, seconds),
  };

  /** Records a run that completed with a report. */
  completed(run: CompletedRun): void {
    this.last = run;
    this.runs.add({ exit_code: String(run.series.exitCode) });
    this.runDuration.observe({}, run.seconds);
  }

  /** Records a run that could not start (exit 3): counted, while the last report stays the last completed one. */
  failed(seconds: number): void {
    this.runs.add({ exit_code: '3' });
    this.runDuration.observe({}, seconds);
  }
}
