/**
 * The finding series of one completed run, made once when the run ends: the monitor keeps these
 * between runs, not the report, so that what it holds from one run to the next is bounded by the code
 * table and `--resource-series`, whatever the size of the cluster (a report of the scale scenario holds
 * tens of thousands of findings).
 *
 * @module
 */

import type { Declaration } from '../checks/check.ts';
import type { Sample } from '../metrics/exposition.ts';
import type { Finding, Report } from '../report/finding.ts';
import { rank, type Status } from '../report/status.ts';

/** The longest resource label value; a longer resource name is cut, and says so. */
export const MAX_RESOURCE_LABEL = 256;

/** What a run's series are made with, fixed for the monitor's life. */
export interface SeriesContext {
  /** The declarations whose checks every run judges (given a 0 for each code they did not find). */
  readonly active: readonly Pick<Declaration, 'name' | 'codes'>[];
  /** `--resource-series`: 0 for no per-resource series. */
  readonly resourceSeries: number;
}

/** The samples of the finding families of one run, and its exit code. */
export interface RunSeries {
  readonly findings: readonly Sample[];
  readonly suppressed: readonly Sample[];
  /** Only with `--resource-series`: at most that many samples, and how many findings were left without one. */
  readonly resources?: { readonly samples: readonly Sample[]; readonly omitted: number };
  readonly exitCode: number;
}

/** The findings by check, code and status, with a 0 for each code an active check did not find. */
function countFindings(findings: readonly Finding[], active: SeriesContext['active']): Sample[] {
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

/** The series of the report of a run that completed. */
export function runSeries(report: Report, context: SeriesContext): RunSeries {
  const { findings, suppressed = [] } = report;
  return {
    findings: countFindings(findings, context.active),
    suppressed: countSuppressed(suppressed.map((s) => s.finding)),
    ...(context.resourceSeries > 0 ? { resources: resourceSeries(findings, context.resourceSeries) } : {}),
    exitCode: report.summary.exitCode,
  };
}
