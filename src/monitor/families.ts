/**
 * The metric families of one scrape: the monitor's counters as they stand, and the finding series of
 * the last completed run (series.ts). The finding series have bounded labels (check, code, status: the
 * code table's), each code of a check that runs given a 0 when none was found; the per-resource series
 * exist only when asked for, at most as many as asked, the rest counted.
 *
 * @module
 */

import { METRICS, type MetricDeclaration } from '../metrics/catalogue.ts';
import type { MetricFamily, Sample } from '../metrics/exposition.ts';
import type { SeriesContext } from './series.ts';
import type { Telemetry } from './telemetry.ts';

/** What the families of a monitor are made with, fixed for its life. */
export interface FamilyContext extends SeriesContext {
  readonly version: string;
  readonly commit: string;
  readonly startedAt: Date;
  readonly intervalMs: number;
}

/** A gauge, counter or info family of one declaration, with these samples. */
function family(declaration: MetricDeclaration, samples: readonly Sample[]): MetricFamily {
  if (declaration.kind === 'histogram') throw new Error(`${declaration.name} is a histogram`);
  return { name: declaration.name, help: declaration.help, type: declaration.kind, samples };
}

/** Seconds since the epoch, as the Prometheus conventions give a time. */
function epochSeconds(at: Date): number {
  return at.getTime() / 1000;
}

/** Every family of a scrape now, in the catalogue's order. */
export function monitorFamilies(telemetry: Telemetry, context: FamilyContext): MetricFamily[] {
  const { last } = telemetry;
  const families: MetricFamily[] = [
    family(METRICS.info, [{ labels: { version: context.version, commit: context.commit }, value: 1 }]),
    family(METRICS.startTime, [{ labels: {}, value: epochSeconds(context.startedAt) }]),
    family(METRICS.interval, [{ labels: {}, value: context.intervalMs / 1000 }]),
  ];
  if (last !== undefined) {
    const { series } = last;
    families.push(family(METRICS.findings, series.findings), family(METRICS.suppressed, series.suppressed));
    if (series.resources !== undefined)
      families.push(
        family(METRICS.finding, series.resources.samples),
        family(METRICS.findingOmitted, [{ labels: {}, value: series.resources.omitted }]),
      );
    families.push(
      family(METRICS.lastExitCode, [{ labels: {}, value: series.exitCode }]),
      family(METRICS.lastTimestamp, [{ labels: {}, value: epochSeconds(last.endedAt) }]),
    );
  }
  families.push(
    telemetry.runs.family(),
    telemetry.runDuration.family(),
    telemetry.apiRequests.family(),
    telemetry.apiErrors.family(),
    telemetry.probeDuration.family(),
  );
  return families;
}
