import { describe, expect, it } from 'vitest';
import { makeReport, type Finding } from '../../../src/report/finding.ts';
import { findingsOf } from '../../support/findings.ts';
import { renderJson } from '../../../src/report/render/json.ts';
import { findingJson } from '../../../src/report/render/json.ts';
import { goJson } from '../../../src/go/json.ts';
import { REPORT_FORMATS, render, renderHumanOf, renderTableOf } from '../../support/render.ts';

const cb = findingsOf('CacheBackendHealth');
const sv = findingsOf('ServerReachability');
const empty = makeReport([]);

describe('renderHuman', () => {
  it('empty report: header, blank line, summary', () => {
    expect(renderHumanOf(empty, { color: false })).toBe('inferencecache doctor\n\nSummary: 0 OK, 0 INFO, 0 WARN, 0 FAIL  (exit 0)\n');
  });

  it('groups by severity (FAIL, WARN, INFO, OK) keeping emission order within a section', () => {
    const report = makeReport([
      cb('CB006', 'cachebackend/a/one', 'fine'),
      cb('CB001', 'cachebackend/a/two', 'not ready'),
      sv('SV001', undefined, 'no server'),
      cb('CB003', 'cachebackend/a/three', 'no events'),
    ]);
    const lines = renderHumanOf(report, { color: false }).split('\n');
    expect(lines).toStrictEqual([
      'inferencecache doctor',
      '',
      'FAIL',
      '  FAIL SV001',
      '      no server',
      '',
      'WARN',
      '  WARN CB001  cachebackend/a/two',
      '      not ready',
      '  WARN CB003  cachebackend/a/three',
      '      no events',
      '',
      'OK',
      '  OK   CB006  cachebackend/a/one',
      '      fine',
      '',
      'Summary: 1 OK, 0 INFO, 2 WARN, 1 FAIL  (exit 2)',
      '',
    ]);
  });

  it('shows tabs and newlines in messages visibly, so a message cannot add a line to the report', () => {
    const out = renderHumanOf(makeReport([cb('CB001', 'cachebackend/a/b', 'x\ty\nSummary: 9 OK  (exit 0)')]), { color: false });
    expect(out).toContain('\n      x\\ty\\nSummary: 9 OK  (exit 0)\n');
    expect(out.split('\n').filter((line) => line.startsWith('Summary:'))).toHaveLength(1);
  });

  it('treats an empty resource like no resource', () => {
    const f = { code: 'SV001', status: 'FAIL', check: 'ServerReachability', resource: '', message: 'm' } satisfies Finding;
    expect(renderHumanOf(makeReport([f]), { color: false })).toContain('\n  FAIL SV001\n      m\n');
  });

  it('colour only wraps header, labels, tags and summary', () => {
    const out = renderHumanOf(makeReport([cb('CB001', 'cachebackend/a/b', 'msg')]), { color: true });
    expect(out).toBe(
      '\x1b[1minferencecache doctor\x1b[0m\n\n' +
        '\x1b[1m\x1b[33mWARN\x1b[0m\n' +
        '  \x1b[33mWARN CB001\x1b[0m  cachebackend/a/b\n' +
        '      msg\n\n' +
        '\x1b[1mSummary: 0 OK, 0 INFO, 1 WARN, 0 FAIL  (exit 1)\x1b[0m\n',
    );
  });

  it('no escape byte at all without colour', () => {
    const out = renderHumanOf(makeReport([cb('CB001', 'r', 'm'), sv('SV003', 'h:1', 'ok')]), { color: false });
    expect(out).not.toContain('\x1b');
  });
});

describe('--output-threshold', () => {
  const findings = [cb('CB001', 'cachebackend/n/x', 'a warn'), cb('CB006', 'cachebackend/n/y', 'an ok'), sv('SV001', undefined, 'a fail')];
  const report = makeReport(findings);

  it('leaves out of human output the sections below it, says how many, and still counts them all', () => {
    const out = render(report, 'human', { outputThreshold: 'WARN' });
    expect(out).toContain('CB001');
    expect(out).toContain('SV001');
    expect(out).not.toContain('CB006');
    expect(out).not.toMatch(/^OK$/m);
    expect(out).toContain('Not shown: 1 finding below WARN (--output-threshold warn; -o json holds every finding)\n');
    expect(out).toContain('Summary: 1 OK, 0 INFO, 1 WARN, 1 FAIL');
  });

  it('leaves rows out of the table, says how many below it, and leaves nothing out of JSON', () => {
    const table = render(report, 'table', { outputThreshold: 'FAIL' });
    const [header, row, blank, note, ...rest] = table.trimEnd().split('\n');
    expect([header?.startsWith('STATUS'), row?.includes('SV001'), blank, note, rest]).toEqual([
      true,
      true,
      '',
      '# not shown: 2 below FAIL (--output-threshold)',
      [],
    ]);
    expect(render(report, 'json', { outputThreshold: 'FAIL' })).toBe(render(report, 'json'));
  });

  it('changes nothing at OK, the default', () => {
    for (const format of REPORT_FORMATS) expect(render(report, format, { outputThreshold: 'OK' })).toBe(render(report, format));
    expect(render(report, 'human')).not.toContain('Not shown');
  });
});

describe('renderJson', () => {
  it('empty report: findings is [] and the document ends with one newline', () => {
    expect(renderJson(empty)).toBe(
      '{\n  "summary": {\n    "ok": 0,\n    "info": 0,\n    "warn": 0,\n    "fail": 0,\n    "exitCode": 0\n  },\n  "findings": []\n}\n',
    );
  });

  it('key order code, status, check, resource, message; resource omitted when absent or empty', () => {
    const blank = { code: 'SV001', status: 'FAIL', check: 'ServerReachability', resource: '', message: 'b' } satisfies Finding;
    const doc = JSON.parse(renderJson(makeReport([cb('CB002', 'cachebackend/n/x', 'a'), blank, sv('SV001', undefined, 'c')])));
    expect(Object.keys(doc)).toStrictEqual(['summary', 'findings']);
    expect(Object.keys(doc.summary)).toStrictEqual(['ok', 'info', 'warn', 'fail', 'exitCode']);
    expect(Object.keys(doc.findings[0])).toStrictEqual(['code', 'status', 'check', 'resource', 'message']);
    expect(Object.keys(doc.findings[1])).toStrictEqual(['code', 'status', 'check', 'message']);
    expect(Object.keys(doc.findings[2])).toStrictEqual(['code', 'status', 'check', 'message']);
  });

  it.each([
    ['with a resource', cb('CB001', 'cachebackend/n/x', 'plain')],
    ['without one', sv('SV001', undefined, 'plain')],
    ['with an empty one', { code: 'SV001', status: 'FAIL', check: 'ServerReachability', resource: '', message: 'b' } satisfies Finding],
    ['hostile text everywhere', cb('CB001', 'cachebackend/n/"<x>"\u2028', 'a\u0000b\u001b[31m\\ "q" \ud800 & \u2029 ✓')],
  ])('writes a finding exactly as the generic Go JSON writer would: %s', (_, f) => {
    for (const depth of ['', '    ']) {
      const doc = {
        code: f.code,
        status: f.status,
        check: f.check,
        resource: f.resource === '' ? undefined : f.resource,
        message: f.message,
      };
      expect(findingJson(f, depth)).toBe(goJson(doc, '  ', depth));
      const guide = {
        status: 'WARN' as const,
        checks: ['CacheBackendHealth'],
        meaning: 'not written to the report',
        hint: 'do <this> & "that"',
        docs: 'https://d.example/codes.md#cb001',
      };
      expect(findingJson(f, depth, guide)).toBe(goJson({ ...doc, hint: guide.hint, docs: guide.docs }, '  ', depth));
    }
  });

  it('gives hint and docs to findings that are not OK, and writes the whole document as the generic writer would', () => {
    const guides = new Map([
      ['CB001', { status: 'WARN' as const, checks: ['CacheBackendHealth'], meaning: 'm1', hint: 'h1', docs: 'd#cb001' }],
      ['CB006', { status: 'OK' as const, checks: ['CacheBackendHealth'], meaning: 'm6', hint: 'h6', docs: 'd#cb006' }],
    ]);
    const findings = [cb('CB001', 'cachebackend/n/x', 'a'), cb('CB006', 'cachebackend/n/y', 'b')];
    const suppressed = [{ finding: cb('CB001', 'cachebackend/n/z', 'c'), rule: { source: '--suppress', match: 'CB001=*/z' } }];
    const report = makeReport(findings, {
      guides,
      suppressed,
      attempts: [{ attempt: 1, elapsedMs: 1500, exitCode: 1, counted: ['CB001'] }],
    });
    const generic = goJson({
      summary: { ok: 1, info: 0, warn: 1, fail: 0, exitCode: 1, suppressed: 1 },
      findings: [
        {
          code: 'CB001',
          status: 'WARN',
          check: 'CacheBackendHealth',
          resource: 'cachebackend/n/x',
          message: 'a',
          hint: 'h1',
          docs: 'd#cb001',
        },
        { code: 'CB006', status: 'OK', check: 'CacheBackendHealth', resource: 'cachebackend/n/y', message: 'b' },
      ],
      suppressed: [
        {
          code: 'CB001',
          status: 'WARN',
          check: 'CacheBackendHealth',
          resource: 'cachebackend/n/z',
          message: 'c',
          suppressedBy: { source: '--suppress', match: 'CB001=*/z' },
        },
      ],
      attempts: [{ attempt: 1, elapsed: '1.5s', exitCode: 1, counted: ['CB001'] }],
    });
    expect(renderJson(report)).toBe(`${generic}\n`);
  });

  it('names a --fail-on other than the default after the exit code, and nothing for the default', () => {
    const warnOnly = [cb('CB001', 'cachebackend/n/x', 'a')];
    expect(Object.keys(JSON.parse(renderJson(makeReport(warnOnly))).summary)).toStrictEqual(['ok', 'info', 'warn', 'fail', 'exitCode']);
    const doc = JSON.parse(renderJson(makeReport(warnOnly, { failOn: 'FAIL' })));
    expect(doc.summary).toStrictEqual({ ok: 0, info: 0, warn: 1, fail: 0, exitCode: 0, failOn: 'FAIL' });
    expect(render(makeReport(warnOnly, { failOn: 'FAIL' }), 'human')).toContain(
      'Summary: 0 OK, 0 INFO, 1 WARN, 0 FAIL  (exit 0, --fail-on fail)\n',
    );
    expect(render(makeReport(warnOnly), 'human')).toContain('Summary: 0 OK, 0 INFO, 1 WARN, 0 FAIL  (exit 1)\n');
  });

  it('uses Go escaping for messages', () => {
    const out = renderJson(makeReport([cb('CB001', 'cachebackend/n/x', '<a> & b\u2028')]));
    expect(out).toContain(String.raw`"message": "\u003ca\u003e \u0026 b\u2028"`);
  });
});

describe('renderTable', () => {
  it('empty report: header only, no trailing padding', () => {
    expect(renderTableOf(empty)).toBe('STATUS  CODE  CHECK  RESOURCE  MESSAGE\n');
  });

  it('rows in emission order, "-" for no resource, whitespace collapsed', () => {
    const report = makeReport([cb('CB006', 'cachebackend/a/one', '  all\tgood \n now  '), sv('SV001', undefined, 'down')]);
    expect(renderTableOf(report)).toBe(
      'STATUS  CODE   CHECK               RESOURCE            MESSAGE\n' +
        'OK      CB006  CacheBackendHealth  cachebackend/a/one  all good now\n' +
        'FAIL    SV001  ServerReachability  -                   down\n',
    );
  });

  it('counts widths in code points, not UTF-16 units', () => {
    const report = makeReport([cb('CB001', 'pod/é/🙂🙂', 'm'), cb('CB001', 'cachebackend/x/y', 'n')]);
    const lines = renderTableOf(report).split('\n');
    // 'cachebackend/x/y' is 16 code points, so the column is 18 wide.
    expect(lines[1]).toBe('WARN    CB001  CacheBackendHealth  pod/é/🙂🙂          m');
    expect([...(lines[1] ?? '')].length).toBe([...(lines[2] ?? '')].length);
  });

  it('an empty message keeps the padding of the columns before it, like tabwriter', () => {
    const out = renderTableOf(makeReport([cb('CB001', 'r', ' \n ')]));
    expect(out.split('\n')[1]).toBe('WARN    CB001  CacheBackendHealth  r         ');
  });
});

describe('render', () => {
  const report = makeReport([cb('CB001', 'cachebackend/a/b', 'm')]);

  it('writes the formats of the report, human first', () => {
    expect(REPORT_FORMATS).toStrictEqual(['human', 'json', 'table', 'junit', 'sarif', 'markdown', 'html']);
  });

  it('dispatches to each renderer', () => {
    expect(render(report, 'human')).toBe(renderHumanOf(report, { color: false }));
    expect(render(report, 'human', { color: true })).toBe(renderHumanOf(report, { color: true }));
    expect(render(report, 'json', { color: true })).toBe(renderJson(report));
    expect(render(report, 'table', { color: true })).toBe(renderTableOf(report));
  });
});

describe('folding OK findings in human output', () => {
  const oks = (n: number) => Array.from({ length: n }, (_, i) => cb('CB006', `cachebackend/n/b${i}`, 'fine'));

  it.each([
    [20, 20, false],
    [21, 0, true],
  ])('%i OK findings of one code: %i listed, folded %s', (n, listed, folded) => {
    const out = render(makeReport([...oks(n), sv('SV003', 'h:1', 'serving')]), 'human');
    expect(out.match(/^ {2}OK {3}CB006 {2}cachebackend/gm) ?? []).toHaveLength(listed);
    expect(out.includes(`  OK   CB006  ${n} findings, folded (--show-ok lists each)\n`)).toBe(folded);
    expect(out).toContain('  OK   SV003  h:1\n');
  });

  it('--show-ok lists them all; JSON and the table always do', () => {
    const report = makeReport(oks(30));
    expect(render(report, 'human', { showOk: true }).match(/CB006 {2}cachebackend/g)).toHaveLength(30);
    expect(JSON.parse(render(report, 'json')).findings).toHaveLength(30);
    expect(render(report, 'table').trimEnd().split('\n')).toHaveLength(31);
  });

  it('never folds findings that are not OK', () => {
    const warns = Array.from({ length: 25 }, (_, i) => cb('CB001', `cachebackend/n/b${i}`, 'not ready'));
    expect(render(makeReport(warns), 'human').match(/WARN CB001 {2}cachebackend/g)).toHaveLength(25);
  });
});
