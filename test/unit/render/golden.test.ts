/**
 * Our own golden files (test/golden/): a report written for this project, rendered in every format,
 * plus the empty report. Run with UPDATE_GOLDEN=1 to rewrite the files after a deliberate change,
 * then review the diff.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGolden } from '../../support/golden.ts';
import { makeReport, type Report } from '../../../src/report/finding.ts';
import { findingsOf } from '../../support/findings.ts';
import { renderJson } from '../../../src/report/render/json.ts';
import { codeGuides } from '../../../src/checks/codes.ts';
import { render, renderHumanOf, renderTableOf } from '../../support/render.ts';

const GOLDEN_DIR = path.resolve(import.meta.dirname, '../../golden');

const cb = findingsOf('CacheBackendHealth');
const sv = findingsOf('ServerReachability');
const ct = findingsOf('CacheTenantHealth');
const sn = findingsOf('SnapshotReachability');
const pb = findingsOf('ProbeReachability');
const SERVER = 'http://inference-cache-server.inference-cache-system.svc:8081';

/** Every layout feature at once: all four sections, a finding without resource, awkward characters. */
const SAMPLE: Report = makeReport([
  sn('SN003', `${SERVER}/snapshot`, 'the snapshot route returned 200 to a request carrying no token at all'),
  cb('API001', 'CacheBackend', 'could not list CacheBackends: forbidden for "system:serviceaccount:ops:doctor"'),
  cb('CB004', 'cachebackend/prod/llama-70b', 'newest KV event is 7m3s old; the freshness window is 2m0s'),
  ct(
    'CT001',
    'cachetenant/prod/team-a',
    'tenant <tag> & "quotes" — 1200 index entries, quota 1000;\tcolumns\tand a\nsecond line (café 🙂)',
  ),
  pb('PB002', `${SERVER}/probe`, 'the probe route is mounted (HEAD answered 405)'),
  // Hostile cluster data: a screen clear in a name, an OSC 52 clipboard write, a bell, a bidi override
  // and a C1 control in a message; the terminal formats must show them, not run them.
  cb('CB001', 'cachebackend/prod/\u001b[2Jwiped', 'Ready=False: \u001b]52;c;cm0gLXJmIC8=\u0007 then \u202egnp.exe and \u0085 next'),
  sv('SV001', undefined, 'no cache-plane server Service was found in any namespace'),
]);

const EMPTY: Report = makeReport([]);

const ep = findingsOf('EnginePodInjectionAudit');

/**
 * What the gates add: hints and docs links under every finding that is not OK, OK findings of one
 * code folded past 20, findings set apart by a rule, the attempts of a --wait run, a --fail-on.
 */
const GATES: Report = makeReport(
  [
    cb('CB001', 'cachebackend/prod/llama-70b', 'Ready=False (reason Reconciling): waiting for the remote tier'),
    sn('SN003', `${SERVER}/snapshot`, 'the snapshot route returned 200 to a request carrying no token at all'),
    ...Array.from({ length: 21 }, (_, i) => ep('EP002', `pod/prod/engine-${i}`, 'engine pod was injected')),
    pb('PB002', `${SERVER}/probe`, 'the probe route is mounted (HEAD answered 405)'),
  ],
  {
    failOn: 'FAIL',
    suppressed: [
      {
        finding: ct('CT001', 'cachetenant/prod/team-a', 'over quota'),
        rule: {
          source: 'rules.yaml:3',
          match: 'CT001=cachetenant/prod/*',
          reason: 'quotas are the platform team’s',
          expires: '2027-01-31',
        },
      },
    ],
    attempts: [
      { attempt: 1, elapsedMs: 1234, exitCode: 1, counted: ['CB001', 'CB003'] },
      { attempt: 2, elapsedMs: 3456, exitCode: 0, counted: [] },
    ],
    guides: codeGuides('https://docs.example.com/inferencecache/codes.html#ignored'),
  },
);

const CASES: readonly (readonly [file: string, render: () => string])[] = [
  ['human.txt', () => renderHumanOf(SAMPLE, { color: false })],
  ['human-color.txt', () => renderHumanOf(SAMPLE, { color: true })],
  ['report.json', () => renderJson(SAMPLE)],
  ['report.table', () => renderTableOf(SAMPLE)],
  ['empty-human.txt', () => renderHumanOf(EMPTY, { color: false })],
  ['empty-human-color.txt', () => renderHumanOf(EMPTY, { color: true })],
  ['empty-report.json', () => renderJson(EMPTY)],
  ['empty-report.table', () => renderTableOf(EMPTY)],
  ['gates-human.txt', () => renderHumanOf(GATES, { color: false })],
  ['gates-human-show-ok.txt', () => render(GATES, 'human', { showOk: true })],
  ['gates-report.json', () => renderJson(GATES)],
  ['gates-report.table', () => renderTableOf(GATES)],
  ['report.html', () => render(SAMPLE, 'html')],
  ['gates-report.html', () => render(GATES, 'html')],
  ['empty-report.html', () => render(EMPTY, 'html')],
  ['report.sarif', () => render(SAMPLE, 'sarif')],
  ['gates-report.sarif', () => render(GATES, 'sarif')],
  ['empty-report.sarif', () => render(EMPTY, 'sarif')],
  ['report.md', () => render(SAMPLE, 'markdown')],
  ['gates-report.md', () => render(GATES, 'markdown')],
  ['empty-report.md', () => render(EMPTY, 'markdown')],
];

describe('renderers match test/golden', () => {
  it.each(CASES)('%s', (file, renderIt) => {
    expectGolden(path.join(GOLDEN_DIR, file), renderIt(), import.meta.filename);
  });

  it('the JSON golden decodes back to the exact findings', () => {
    const doc = JSON.parse(renderJson(SAMPLE));
    expect(doc).toStrictEqual({ summary: SAMPLE.summary, findings: SAMPLE.findings });
    expect(SAMPLE.summary).toStrictEqual({ ok: 1, info: 1, warn: 3, fail: 2, exitCode: 2 });
  });
});
