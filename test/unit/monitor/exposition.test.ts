/**
 * The exposition formats: the text format and OpenMetrics written from the same families (golden
 * files, test/golden/metrics.*), label values from a hostile cluster escaped so that they can never
 * start a line of their own, and the format chosen by the scraper's Accept header.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGolden } from '../../support/golden.ts';
import { expose, negotiate, type MetricFamily } from '../../../src/metrics/exposition.ts';
import { Counter, Histogram } from '../../../src/metrics/instruments.ts';

const GOLDEN_DIR = path.resolve(import.meta.dirname, '../../golden');

/** Compares `text` with the golden file of that name (see test/support/golden.ts). */
function expectGoldenFile(file: string, text: string): void {
  expectGolden(path.join(GOLDEN_DIR, file), text, import.meta.filename);
}

function sampleFamilies(): MetricFamily[] {
  const runs = new Counter('demo_runs', 'Runs, by exit code.');
  runs.add({ exit_code: '0' }, 3);
  runs.add({ exit_code: '2' });
  const took = new Histogram('demo_run_duration_seconds', 'How long each run took.', [0.5, 1, 2.5]);
  for (const s of [0.2, 0.7, 0.7, 9]) took.observe({}, s);
  return [
    { name: 'demo', type: 'info', help: 'The build.', samples: [{ labels: { version: '1.2.3' }, value: 1 }] },
    {
      name: 'demo_findings',
      type: 'gauge',
      help: 'A help with a backslash \\ and a "quote"\nand a second line.',
      samples: [
        { labels: { code: 'CB004', resource: 'cachebackend/ns/a"b\\c\nEVIL_metric 1' }, value: 2 },
        { labels: { code: 'SV003', resource: '' }, value: 0 },
      ],
    },
    runs.family(),
    took.family(),
    {
      name: 'demo_limits',
      type: 'gauge',
      help: 'Special values.',
      samples: [
        { labels: { v: 'inf' }, value: Infinity },
        { labels: { v: 'nan' }, value: NaN },
      ],
    },
  ];
}

describe('the exposition formats', () => {
  it('text format 0.0.4 (golden)', () => expectGoldenFile('metrics.prom', expose(sampleFamilies(), 'text', { cluster: 'east-1' })));
  it('OpenMetrics 1.0 (golden), ending with # EOF', () => {
    const text = expose(sampleFamilies(), 'openmetrics', { cluster: 'east-1' });
    expect(text.endsWith('# EOF\n')).toBe(true);
    expectGoldenFile('metrics.openmetrics', text);
  });

  it('a label value from the cluster never starts a line: its line feed, quote and backslash are escaped', () => {
    for (const format of ['text', 'openmetrics'] as const) {
      const lines = expose(sampleFamilies(), format).split('\n');
      expect(lines.filter((line) => line.startsWith('EVIL'))).toEqual([]);
      expect(lines.some((line) => line.includes(String.raw`resource="cachebackend/ns/a\"b\\c\nEVIL_metric 1"`))).toBe(true);
    }
  });

  it('names the families by each format: a counter is x_total in text and x in OpenMetrics', () => {
    const text = expose(sampleFamilies(), 'text');
    const om = expose(sampleFamilies(), 'openmetrics');
    expect(text).toContain('# TYPE demo_runs_total counter\n');
    expect(om).toContain('# TYPE demo_runs counter\n');
    expect(text).toContain('# TYPE demo_info gauge\n');
    expect(om).toContain('# TYPE demo info\n');
    expect(text).toContain('le="1"}');
    expect(om).toContain('le="1.0"}');
  });

  it('refuses a name neither format allows (a bug, not an input)', () => {
    expect(() => expose([{ name: 'bad-name', type: 'gauge', help: '', samples: [] }], 'text')).toThrow(/invalid metric name/);
    expect(() => expose([{ name: 'ok', type: 'gauge', help: '', samples: [{ labels: { 'a-b': '' }, value: 1 }] }], 'text')).toThrow(
      /invalid label name/,
    );
  });
});

describe('content negotiation', () => {
  const cases: [string | undefined, 'text' | 'openmetrics'][] = [
    [undefined, 'text'],
    ['', 'text'],
    ['*/*', 'text'],
    ['text/plain', 'text'],
    ['application/json', 'text'],
    // What Prometheus 2.42 sends.
    [
      'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      'openmetrics',
    ],
    ['application/openmetrics-text', 'openmetrics'],
    ['text/plain;version=0.0.4;q=0.9, application/openmetrics-text;version=1.0.0;q=0.5', 'text'],
    ['application/openmetrics-text;version=2.0.0', 'text'],
    ['application/openmetrics-text;q=0', 'text'],
    ['APPLICATION/OPENMETRICS-TEXT; VERSION=1.0.0', 'openmetrics'],
  ];
  it.each(cases)('Accept %j → %s', (accept, format) => expect(negotiate(accept)).toBe(format));
});
