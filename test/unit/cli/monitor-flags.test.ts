/**
 * `inferencecache monitor`'s flags: declared once (src/cli/monitor-flags.ts), the shared ones taken from
 * the doctor's; its help pinned in test/golden/monitor-help.txt (UPDATE_GOLDEN=1 rewrites it), its
 * table in docs/monitor.md (`npm run docs`), and the values the parser accepts and refuses.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGolden } from '../../support/golden.ts';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { DOCTOR_FLAGS } from '../../../src/cli/flags.ts';
import { flagsMarkdown } from '../../../src/cli/flags-markdown.ts';
import { MONITOR_FLAGS, MONITOR_FLAGS_MARKERS } from '../../../src/cli/monitor-flags.ts';
import { UsageError, type MonitorOptions } from '../../../src/cli/options.ts';
import { parseCommandLine } from '../../../src/cli/parse.ts';
import { METRICS_MARKERS, metricsMarkdown } from '../../../src/metrics/catalogue-markdown.ts';
import { withRegion } from '../../../src/text/generated-region.ts';

const GOLDEN = path.join(PROJECT_ROOT, 'test/golden/monitor-help.txt');

function monitor(...args: string[]): MonitorOptions {
  const command = parseCommandLine(['monitor', ...args]);
  if (command.kind !== 'monitor') throw new Error(`expected monitor, got ${command.kind}`);
  return command.options;
}

function refusal(...args: string[]): string | undefined {
  try {
    parseCommandLine(['monitor', ...args]);
    return undefined;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return err.message;
  }
}

describe('the monitor flag declaration', () => {
  it("names each flag once; the shared ones are the doctor's own declarations", () => {
    const longs = MONITOR_FLAGS.map((f) => f.long);
    expect(new Set(longs).size).toBe(longs.length);
    for (const flag of MONITOR_FLAGS) {
      const doctors = DOCTOR_FLAGS.find((d) => d.long === flag.long);
      if (doctors !== undefined && flag.long !== 'help') expect(flag).toBe(doctors);
    }
  });

  it('--help is test/golden/monitor-help.txt', () => {
    const command = parseCommandLine(['monitor', '--help']);
    if (command.kind !== 'help') throw new Error('no help');
    expectGolden(GOLDEN, command.text, import.meta.filename);
    for (const line of command.text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(106);
  });

  it('docs/monitor.md holds the flag and metric tables rendered from their declarations (npm run docs)', () => {
    const page = fs.readFileSync(path.join(PROJECT_ROOT, 'docs/monitor.md'), 'utf8');
    const rendered = withRegion(withRegion(page, MONITOR_FLAGS_MARKERS, flagsMarkdown(MONITOR_FLAGS)), METRICS_MARKERS, metricsMarkdown());
    expect(rendered, 'docs/monitor.md is stale: run `npm run docs`').toBe(page);
  });
});

describe('parsing monitor', () => {
  it('has defaults a pod can run with: every address on :8080, a minute, no cluster label, no per-resource series, no :8081', () => {
    const o = monitor();
    expect(o).toMatchObject({ listen: { host: '', port: 8080 }, intervalMs: 60_000, cluster: '', resourceSeries: 0, once: false });
    expect(o.run).toMatchObject({
      controllerListener: false,
      timeoutMs: 30_000,
      failOn: 'WARN',
      files: [],
      waitMs: 0,
      quiet: true,
      terminationMessagePath: '',
    });
  });

  it('reads its own flags and the shared ones', () => {
    const o = monitor(
      '--listen-address',
      '127.0.0.1:9464',
      '--interval',
      '5m',
      '--cluster',
      'prod eu/1',
      '--resource-series',
      '250',
      '--probe-controller-listener',
      '--once',
      '-n',
      'team-a',
      '--fail-on',
      'fail',
      '--suppress',
      'CB004',
      '--timeout',
      '2m',
      '-o',
      'json',
    );
    expect(o).toMatchObject({
      listen: { host: '127.0.0.1', port: 9464 },
      intervalMs: 300_000,
      cluster: 'prod eu/1',
      resourceSeries: 250,
      once: true,
    });
    expect(o.run).toMatchObject({ controllerListener: true, namespace: 'team-a', failOn: 'FAIL', timeoutMs: 120_000, output: 'json' });
    expect(o.run.suppress).toHaveLength(1);
    expect(monitor('--listen-address', '[::1]:8080').listen).toEqual({ host: '::1', port: 8080 });
  });

  it.each([
    [['--interval', '999ms'], /--interval "999ms": the shortest is 1s/],
    [['--interval', 'soon'], /--interval "soon"/],
    [['--listen-address', '8080'], /--listen-address "8080": want host:port/],
    [['--listen-address', ':99999'], /port "99999"/],
    [['--listen-address', 'bad host:80'], /is not a host name or IP address/],
    [['--resource-series=-1'], /--resource-series "-1"/],
    [['--resource-series', '10001'], /from 0 to 10000/],
    [['--resource-series', '1e3'], /--resource-series "1e3"/],
    [['--cluster', 'a\nb'], /--cluster .*no control characters/],
    [['--probe-controller-listener', '--config-only'], /disagree/],
    [['--wait', '5m'], /--wait/],
    [['-f', 'x.yaml'], /'-f'|-f/],
    [['--termination-message-path', 'x'], /termination-message-path/],
    [['extra'], /monitor takes no arguments/],
    [['--namespace', 'Bad_NS'], /invalid --namespace/],
  ])('refuses %j', (args, message) => {
    expect(refusal(...args)).toMatch(message);
  });
});
