/**
 * `-o junit`: every rendering validated against the JUnit schema the tests keep, with xmllint; what
 * becomes a failure, a skip and a pass; hostile cluster text kept inert.
 */
import { describe, expect, it } from 'vitest';
import { codeGuides } from '../../../src/checks/codes.ts';
import { makeReport, type Finding, type Report } from '../../../src/report/finding.ts';
import { render } from '../../support/render.ts';
import { findingsOf } from '../../support/findings.ts';
import { validateJunit, xmllintMissing } from '../../support/junit/validate.ts';

const cb = findingsOf('CacheBackendHealth');
const sv = findingsOf('ServerReachability');
const ct = findingsOf('CacheTenantHealth');

const FINDINGS: readonly Finding[] = [
  sv('SV003', '10.0.0.1:9090', 'serving'),
  cb('CB001', 'cachebackend/prod/a', 'Ready=False'),
  cb('CB006', 'cachebackend/prod/b', 'healthy'),
  ct('CT001', 'cachetenant/prod/t', 'over quota'),
];
const SUPPRESSED = [
  { finding: cb('CB004', 'cachebackend/prod/c', 'stale'), rule: { source: 'rules.yaml:3', match: 'CB004', reason: 'known' } },
];
const HOSTILE = cb(
  'CB001',
  'cachebackend/prod/\u001b[2J<x>&"\'',
  ']]></failure><failure>forged \u0000 \u0007 \ud800 \ufffe \u202e\u0085 end',
);

const REPORTS: readonly (readonly [string, Report])[] = [
  ['a report with failures, passes and a suppressed finding', makeReport(FINDINGS, { suppressed: SUPPRESSED, guides: codeGuides() })],
  ['--fail-on fail', makeReport(FINDINGS, { failOn: 'FAIL' })],
  ['an empty report', makeReport([])],
  ['an incomplete report', makeReport(FINDINGS, { incomplete: 'interrupted by SIGTERM' })],
  ['hostile cluster text', makeReport([HOSTILE], { guides: codeGuides() })],
];

const missing = xmllintMissing();

describe.skipIf(missing !== '')(`-o junit validates against the JUnit schema${missing === '' ? '' : ` (skipped: ${missing})`}`, () => {
  it.each(REPORTS)('%s', (_, report) => {
    const verdict = validateJunit(render(report, 'junit'));
    expect(verdict.output).toMatch(/validates/);
    expect(verdict.code).toBe(0);
  });

  it('the validator refuses what the schema does not allow (so the checks above can fail)', () => {
    const good = render(makeReport(FINDINGS), 'junit');
    expect(validateJunit(good.replace('<testcase ', '<testcase bogus="1" ')).code).not.toBe(0);
    expect(validateJunit(good.replace(' tests="', ' tests="-')).code).not.toBe(0);
    expect(validateJunit(good.replace('</testsuites>', '')).code).not.toBe(0);
  });
});

describe('-o junit content', () => {
  const xml = render(makeReport(FINDINGS, { suppressed: SUPPRESSED, guides: codeGuides('https://d.example/codes.md') }), 'junit');

  it('has one testsuite per check, in run order, with its counts', () => {
    expect(
      [...xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)" failures="(\d+)" errors="0" skipped="(\d+)">/g)].map((m) => m.slice(1)),
    ).toEqual([
      ['ServerReachability', '1', '0', '0'],
      ['CacheBackendHealth', '3', '1', '1'],
      ['CacheTenantHealth', '1', '1', '0'],
    ]);
    expect(xml).toContain('<testsuites name="inferencecache doctor" tests="5" failures="2" errors="0" skipped="1">');
  });

  it('fails what counts, with its hint and docs; skips what a rule suppressed; passes the rest', () => {
    expect(xml).toContain(
      '<failure type="CB001" message="WARN: Ready=False">WARN: Ready=False\nhint: ' +
        'Read the condition&apos;s reason and message (kubectl describe cachebackend); with no condition at all, check that the controller is running and reconciling this namespace.' +
        '\ndocs: https://d.example/codes.md#cb001</failure>',
    );
    expect(xml).toContain(
      '<testcase classname="CacheBackendHealth" name="CB004 cachebackend/prod/c">\n      <skipped message="suppressed by rules.yaml:3: CB004 (known)"/>',
    );
    expect(xml).toContain(
      '<testcase classname="CacheBackendHealth" name="CB006 cachebackend/prod/b">\n      <system-out>OK: healthy</system-out>',
    );
  });

  it('counts only findings at or above --fail-on as failures', () => {
    const strict = render(makeReport(FINDINGS, { failOn: 'FAIL' }), 'junit');
    expect(strict).not.toContain('<failure');
    expect(strict).toContain('<system-out>WARN: Ready=False</system-out>');
    const lax = render(makeReport(FINDINGS, { failOn: 'OK' }), 'junit');
    expect(lax.match(/<failure /g)).toHaveLength(4);
  });

  it('marks an incomplete run as an error, never green', () => {
    const out = render(makeReport(FINDINGS, { incomplete: 'interrupted by SIGTERM' }), 'junit');
    expect(out).toContain('<error type="incomplete" message="interrupted by SIGTERM"/>');
    expect(out).not.toContain('<failure');
  });

  it('keeps hostile text inert: no control character, no markup, no forged element', () => {
    const out = render(makeReport([HOSTILE]), 'junit');
    // eslint-disable-next-line no-control-regex -- asserting their absence
    expect(out).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202e\ud800\ufffe]/);
    expect(out.match(/<failure /g)).toHaveLength(1);
    expect(out).toContain('name="CB001 cachebackend/prod/\\x1b[2J&lt;x&gt;&amp;&quot;&apos;"');
    expect(out).toContain(']]&gt;&lt;/failure&gt;&lt;failure&gt;forged \\x00 \\x07 \\ud800 \\ufffe \\u202e\\x85 end');
  });
});
