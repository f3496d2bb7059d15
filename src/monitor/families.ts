/**
 * The metric families of one scrape: the monitor's counters as they stand, and the finding series
 * made from the last completed run's report. The finding series have bounded labels (check, code,
 * status: the code table's), each code of a check that runs given a 0 when none was found; the
 * per-resource series exist only when asked for, at most as many as asked, the rest counted.
 *
 * @module
 */

import type { Declaration } from '../checks/check.ts';
import { METRICS, type MetricDeclaration } from '../metrics/catalogue.ts';
import type { MetricFamily, Sample } from '../metrics/exposition.ts';
import type { Finding } from '../report/finding.ts';
import { rank, type Status } from '../report/status.ts';
import type { Telemetry } from './telemetry.ts';

/** The longest resource label value; a longer resource name is cut, and says so. */
export const MAX_RESOURCE_LABEL = 256;

/** What the families of a monitor are made with, fixed for its life. */
export interface FamilyContext {
  readonly version: string;
  readonly commit: string;
  readonly startedAt: Date;
  readonly intervalMs: number;
  /** The declarations whose checks every run judges (given a 0 for each code they did not find). */
  readonly active: readonly Pick<Declaration, 'name' | 'codes'>[];
  /** `--resource-series`: 0 for no per-resource series. */
  readonly resourceSeries: number;
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

/** The findings by check, code and status, with a 0 for each code an active check did not find. */
function countFindings(findings: readonly Finding[], active: FamilyContext['active']): Sample[] {
  const counts = new Map<string, { check: string; code: string; status: Status; n: number }>();
  for (const declaration of active) {
    for (const [code, { status }] of Object.entries(declaration.codes)) {
      counts.set(JSON.stringify([declaration.name, code]), { check: declaration.name, code, status, n: 0 });
    }
  }
  for (const f of findings) {
    const key = JSON.stringify([f.check, f.code]);
    const found = counts.get(key);
    if (found === undefined) counts.set(key, { check: f.check, code: f.code, status: f.status, n: 1 });
    else found.n++;
  }
  return [...counts.values()].map(({ check, code, status, n }) => ({ labels: { check, code, status }, value: n }));
}

/** The suppressed findings by check and code. */
function countSuppressed(findings: readonly Finding[]): Sample[] {
  const counts = new Map<string, { check: string; code: string; n: number }>();
  for (const f of findings) {
    const key = JSON.stringify([f.check, f.code]);
    const found = counts.get(key);
    if (found === undefined) counts.set(key, { check: f.check, code: f.code, n: 1 });
    else found.n++;
  }
  return [...counts.values()].map(({ check, code, n }) => ({ labels: { check, code }, value: n }));
}

/** A resource as a label value: whole up to {@link MAX_RESOURCE_LABEL} characters, else cut with a mark. */
function resourceLabel(resource: string | undefined): string {
  if (resource === undefined) return '';
  const chars = [...resource];
  return chars.length <= MAX_RESOURCE_LABEL ? resource : `${chars.slice(0, MAX_RESOURCE_LABEL - 1).join('')}…`;
}

/**
 * At most `cap` series of the findings that are not OK, the most severe first (in report order within
 * a status), and how many were left without one. Two findings of one check, code and resource are one
 * series: a series is a label set, and the report never holds such twins anyway.
 */
function resourceSeries(findings: readonly Finding[], cap: number): { samples: Sample[]; omitted: number } {
  const notOk = findings.filter((f) => f.status !== 'OK');
  const bySeverity = notOk.map((f, i) => ({ f, i })).sort((a, b) => rank(b.f.status) - rank(a.f.status) || a.i - b.i);
  const seen = new Set<string>();
  const samples: Sample[] = [];
  let omitted = 0;
  for (const { f } of bySeverity) {
    const labels = { check: f.check, code: f.code, status: f.status, resource: resourceLabel(f.resource) };
    const key = JSON.stringify(labels);
    if (seen.has(key)) continue;
    if (samples.length >= cap) {
      omitted++;
      continue;
    }
    seen.add(key);
    samples.push({ labels, value: 1 });
  }
  return { samples, omitted };
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
    const { findings, suppressed = [] } = last.report;
    families.push(
      family(METRICS.findings, countFindings(findings, context.active)),
      family(METRICS.suppressed, countSuppressed(suppressed.map((s) => s.finding))),
    );
    if (context.resourceSeries > 0) {
      const { samples, omitted } = resourceSeries(findings, context.resourceSeries);
      families.push(family(METRICS.finding, samples), family(METRICS.findingOmitted, [{ labels: {}, value: omitted }]));
    }
    families.push(
      family(METRICS.lastExitCode, [{ labels: {}, value: last.report.summary.exitCode }]),
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
