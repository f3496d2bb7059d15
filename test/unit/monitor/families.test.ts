/**
 * The series of a scrape, from the last completed run: the findings by check, code and status with a 0
 * for each code a check that ran did not find, the suppressed apart, the per-resource series only when
 * asked for and never more than asked (the rest counted), and every family the catalogue declares
 * with the labels it declares and no other. promtool lints a realistic scrape.
 */
import { describe, expect, it } from 'vitest';
import { CHECKS, activeDeclarations } from '../../../src/checks/registry.ts';
import { SUPPRESSIONS } from '../../../src/checks/suppressions.ts';
import { METRICS } from '../../../src/metrics/catalogue.ts';
import { expose, type MetricFamily } from '../../../src/metrics/exposition.ts';
import { monitorFamilies, type FamilyContext } from '../../../src/monitor/families.ts';
import { MAX_RESOURCE_LABEL, runSeries } from '../../../src/monitor/series.ts';
import { Telemetry } from '../../../src/monitor/telemetry.ts';
import { makeReport, type Finding } from '../../../src/report/finding.ts';
import { findingsOf } from '../../support/findings.ts';
import { promtool, promtoolMissing } from '../../support/prometheus/promtool.ts';

const cb = findingsOf('CacheBackendHealth');
const sv = findingsOf('ServerReachability');
const active = activeDeclarations({ configOnly: false, controllerListener: false }, [...CHECKS, SUPPRESSIONS]);

function context(o: Partial<FamilyContext> = {}): FamilyContext {
  return {
    version: '1.0.0',
    commit: 'abc',
    startedAt: new Date('2026-12-06T08:00:00Z'),
    intervalMs: 60_000,
    active,
    resourceSeries: 0,
    ...o,
  };
}

/** A monitor's telemetry after one run that found `findings` (and suppressed `suppressed`), its series made with `made`. */
function telemetryWith(findings: readonly Finding[], suppressed: readonly Finding[] = [], made: FamilyContext = context()): Telemetry {
  const t = new Telemetry();
  const report = makeReport(findings, {
    suppressed: suppressed.map((finding) => ({ finding, rule: { source: '--suppress', match: finding.code } })),
  });
  t.completed({ series: runSeries(report, made), endedAt: new Date('2026-12-06T08:01:00Z'), seconds: 1.5 });
  return t;
}

/** The families of a scrape after one run that found `findings`, with context `c`. */
function familiesAfter(findings: readonly Finding[], c: FamilyContext, suppressed: readonly Finding[] = []): MetricFamily[] {
  return monitorFamilies(telemetryWith(findings, suppressed, c), c);
}

function samplesOf(families: readonly MetricFamily[], name: string) {
  const family = families.find((f) => f.name === name);
  if (family === undefined || family.type === 'histogram') return undefined;
  return family.samples;
}

const FINDINGS: Finding[] = [
  sv('SV002', 'host:9090', 'NOT_SERVING'),
  cb('CB004', 'cachebackend/a/one', 'stale'),
  cb('CB004', 'cachebackend/a/two', 'stale'),
  cb('CB006', 'cachebackend/a/three', 'healthy'),
];

describe('the finding series', () => {
  it('count by check, code and status, with a 0 for every code of a check that ran', () => {
    const samples = samplesOf(monitorFamilies(telemetryWith(FINDINGS), context()), METRICS.findings.name) ?? [];
    const value = (check: string, code: string) => samples.find((s) => s.labels['check'] === check && s.labels['code'] === code)?.value;
    expect(value('ServerReachability', 'SV002')).toBe(1);
    expect(value('CacheBackendHealth', 'CB004')).toBe(2);
    expect(value('CacheBackendHealth', 'CB006')).toBe(1);
    expect(value('CacheBackendHealth', 'CB001')).toBe(0);
    expect(value('ServerReachability', 'SV001')).toBe(0);
    // The checks of the listener's routes did not run: no series says they found nothing.
    expect(samples.some((s) => s.labels['check'] === 'SnapshotReachability')).toBe(false);
    expect(samples.find((s) => s.labels['code'] === 'SV002')?.labels['status']).toBe('FAIL');
    // Bounded: one series per declared code of a check that runs, never one per resource.
    const declared = active.reduce((n, d) => n + Object.keys(d.codes).length, 0);
    expect(samples).toHaveLength(declared);
  });

  it('suppressed findings are counted apart, and not in the findings', () => {
    const families = monitorFamilies(telemetryWith([], [cb('CB004', 'cachebackend/a/one', 'stale')]), context());
    expect(samplesOf(families, METRICS.suppressed.name)).toEqual([{ labels: { check: 'CacheBackendHealth', code: 'CB004' }, value: 1 }]);
    const cb004 = samplesOf(families, METRICS.findings.name)?.find((s) => s.labels['code'] === 'CB004');
    expect(cb004?.value).toBe(0);
  });

  it('no per-resource series unless asked for', () => {
    const names = monitorFamilies(telemetryWith(FINDINGS), context()).map((f) => f.name);
    expect(names).not.toContain(METRICS.finding.name);
    expect(names).not.toContain(METRICS.findingOmitted.name);
  });

  it('per-resource series: not OK only, the most severe first, at most as many as asked, the rest counted', () => {
    const families = familiesAfter(FINDINGS, context({ resourceSeries: 2 }));
    expect(samplesOf(families, METRICS.finding.name)).toEqual([
      { labels: { check: 'ServerReachability', code: 'SV002', status: 'FAIL', resource: 'host:9090' }, value: 1 },
      { labels: { check: 'CacheBackendHealth', code: 'CB004', status: 'WARN', resource: 'cachebackend/a/one' }, value: 1 },
    ]);
    expect(samplesOf(families, METRICS.findingOmitted.name)).toEqual([{ labels: {}, value: 1 }]);
  });

  it('a resource name of any length makes a label of at most 256 characters', () => {
    const long = `cachebackend/a/${'x'.repeat(100_000)}`;
    const samples = samplesOf(familiesAfter([cb('CB004', long, 'stale')], context({ resourceSeries: 5 })), METRICS.finding.name);
    const resource = samples?.[0]?.labels['resource'] ?? '';
    expect([...resource]).toHaveLength(MAX_RESOURCE_LABEL);
    expect(resource.endsWith('…')).toBe(true);
  });

  it('many findings of one code are still one series each way, and the cap holds at any count', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => cb('CB004', `cachebackend/a/b${i}`, 'stale'));
    const families = familiesAfter(many, context({ resourceSeries: 100 }));
    expect(samplesOf(families, METRICS.finding.name)).toHaveLength(100);
    expect(samplesOf(families, METRICS.findingOmitted.name)?.[0]?.value).toBe(19_900);
    expect(samplesOf(families, METRICS.findings.name)?.find((s) => s.labels['code'] === 'CB004')?.value).toBe(20_000);
  });

  it('before the first run completes: no finding series and no last-run series, the rest present', () => {
    const names = monitorFamilies(new Telemetry(), context()).map((f) => f.name);
    expect(names).not.toContain(METRICS.findings.name);
    expect(names).not.toContain(METRICS.lastTimestamp.name);
    expect(names).toContain(METRICS.startTime.name);
    expect(names).toContain(METRICS.apiRequests.name);
  });
});

describe('the catalogue is the contract', () => {
  const full = context({ resourceSeries: 10 });
  const telemetry = telemetryWith(FINDINGS, [cb('CB001', 'cachebackend/a/x', 'x')], full);
  telemetry.observer.api(10, 1);
  telemetry.observer.probe('grpc_health', 0.01);
  telemetry.failed(0.2);
  const families = monitorFamilies(telemetry, full);

  it('every family of a full scrape is declared, with its declared type, in the declared order', () => {
    const declared = Object.values(METRICS);
    expect(families.map((f) => f.name)).toEqual(declared.map((d) => d.name));
    for (const f of families) expect(declared.find((d) => d.name === f.name)?.kind).toBe(f.type);
  });

  it('every series carries exactly the labels its family declares', () => {
    for (const f of families) {
      const labels = (Object.values(METRICS).find((d) => d.name === f.name)?.labels ?? []) as readonly string[];
      const sets = f.type === 'histogram' ? f.series.map((s) => s.labels) : f.samples.map((s) => s.labels);
      for (const set of sets) expect(Object.keys(set).sort(), f.name).toEqual([...labels].sort());
    }
  });

  it('names follow the conventions: the prefix, base units, no _total on a declared name', () => {
    for (const d of Object.values(METRICS)) {
      expect(d.name).toMatch(/^inferencecache_doctor(_[a-z]+)*$/);
      expect(d.name.endsWith('_total')).toBe(false);
      if (d.kind === 'histogram') expect(d.name.endsWith('_seconds')).toBe(true);
    }
  });

  const missing = promtoolMissing();
  it.skipIf(missing !== '')(
    `promtool check metrics finds nothing to say of a full scrape${missing === '' ? '' : ` (skipped: ${missing})`}`,
    () => {
      const { code, output } = promtool(['check', 'metrics'], expose(families, 'text', { cluster: 'east-1' }));
      expect(output).toBe('');
      expect(code).toBe(0);
    },
  );
});
