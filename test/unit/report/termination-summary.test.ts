import { describe, expect, it } from 'vitest';
import { codeTable } from '../../../src/checks/codes.ts';
import type { Code } from '../../../src/checks/registry.ts';
import { makeReport, type Finding } from '../../../src/report/finding.ts';
import { TERMINATION_MESSAGE_MAX_BYTES, terminationSummary } from '../../../src/report/termination-summary.ts';
import { codesOf, findingsOf } from '../../support/findings.ts';

/** A finding of `code` with the status and (first) check the code table gives it. */
function finding(code: Code, resource?: string): Finding {
  const row = codeTable().find((r) => r.code === code);
  const check = row?.checks[0];
  if (row === undefined || check === undefined) throw new Error(`${code} has no check`);
  return { code, status: row.status, check, ...(resource === undefined ? {} : { resource }), message: `${code} happened` };
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
const many = (code: Code, n: number, name = (i: number) => `cachebackend/ns-${i % 50}/backend-${i}`): Finding[] =>
  Array.from({ length: n }, (_, i) => finding(code, name(i)));

describe('terminationSummary: the threshold', () => {
  it('names a --fail-on other than the default beside the exit code', () => {
    const findings = [finding('CB001', 'cachebackend/a/x')];
    expect(terminationSummary(makeReport(findings, { failOn: 'FAIL' }))).toBe(
      'inferencecache doctor: exit 0 (--fail-on fail); 0 FAIL, 1 WARN, 0 INFO, 0 OK\nWARN CB001 (1): cachebackend/a/x\n',
    );
    expect(terminationSummary(makeReport(findings, { failOn: 'WARN' }))).toMatch(/^inferencecache doctor: exit 1; /);
  });
});

describe('terminationSummary: what it says', () => {
  const cases: { name: string; findings: Finding[]; want: string }[] = [
    {
      name: 'a healthy run is the counts alone',
      findings: [finding('SV003'), finding('CP001', 'namespace/a'), finding('CB006', 'cachebackend/a/b')],
      want: 'inferencecache doctor: exit 0; 0 FAIL, 0 WARN, 1 INFO, 2 OK\n',
    },
    {
      name: 'FAIL codes come before WARN codes, each in emission order',
      findings: [finding('CB001', 'cachebackend/a/x'), finding('SN001'), finding('API001', 'Pod'), finding('CB002', 'cachebackend/a/y')],
      want: [
        'inferencecache doctor: exit 2; 2 FAIL, 2 WARN, 0 INFO, 0 OK',
        'FAIL SN001 (1)',
        'FAIL API001 (1): Pod',
        'WARN CB001 (1): cachebackend/a/x',
        'WARN CB002 (1): cachebackend/a/y',
        '',
      ].join('\n'),
    },
    {
      name: 'a resource named twice is listed once but counted twice',
      findings: [finding('API001', 'Event'), finding('API001', 'CacheBackend'), finding('API001', 'Event')],
      want: 'inferencecache doctor: exit 2; 3 FAIL, 0 WARN, 0 INFO, 0 OK\nFAIL API001 (3): Event, CacheBackend\n',
    },
    {
      name: 'a line break or an ESC inside a resource is shown, not obeyed',
      findings: [finding('CB001', 'cachebackend/a/evil\nFAIL FAKE001 (1)\u001b[2J')],
      want: 'inferencecache doctor: exit 1; 0 FAIL, 1 WARN, 0 INFO, 0 OK\nWARN CB001 (1): cachebackend/a/evil\\nFAIL FAKE001 (1)\\x1b[2J\n',
    },
  ];
  it.each(cases)('$name', ({ findings, want }) => {
    expect(terminationSummary(makeReport(findings))).toBe(want);
  });
});

describe('terminationSummary: the 4 KiB bound', () => {
  const fails = codesOf('FAIL');
  const warns = codesOf('WARN');

  it('is 4096 bytes by default, the most the kubelet keeps', () => {
    expect(TERMINATION_MESSAGE_MAX_BYTES).toBe(4096);
  });

  it('keeps thousands of findings under 4096 bytes and still names every FAIL and WARN code', () => {
    const findings = [...fails, ...warns].flatMap((code) => many(code, 2_000));
    const text = terminationSummary(makeReport(findings));
    expect(bytes(text)).toBeLessThanOrEqual(4096);
    for (const code of fails) expect(lines(text)).toContainEqual(expect.stringMatching(new RegExp(`^FAIL ${code} \\(2000\\)`)));
    for (const code of warns) expect(lines(text)).toContainEqual(expect.stringMatching(new RegExp(`^WARN ${code} \\(2000\\)`)));
    expect(text).toMatch(/, \+\d+ more\n/);
  });

  it('shares the room: one code with many resources does not crowd out the next', () => {
    const findings = [...many('SN001', 5_000), finding('PL001', 'service/inference-cache-system/inference-cache-server')];
    const text = terminationSummary(makeReport(findings));
    expect(bytes(text)).toBeLessThanOrEqual(4096);
    expect(lines(text)).toContain('FAIL PL001 (1): service/inference-cache-system/inference-cache-server');
    expect(lines(text)[1]).toMatch(/^FAIL SN001 \(5000\): cachebackend\/ns-0\/backend-0, .*, \+\d+ more$/);
    expect(bytes(text)).toBeGreaterThan(4000);
  });

  it('counts bytes, not characters, and never splits a character', () => {
    const findings = many('CB001', 3_000, (i) => `cachebackend/名前空間/バックエンド-${i}`);
    const text = terminationSummary(makeReport(findings));
    expect(bytes(text)).toBeLessThanOrEqual(4096);
    expect(bytes(text)).toBeGreaterThan(4000);
    expect(text.length).toBeLessThan(bytes(text) * 0.7);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(text, 'utf8'))).toBe(text);
  });

  it('returns the whole text untouched when it fits', () => {
    const findings = many('CB001', 3);
    const text = terminationSummary(makeReport(findings));
    expect(text).toBe(
      'inferencecache doctor: exit 1; 0 FAIL, 3 WARN, 0 INFO, 0 OK\nWARN CB001 (3): cachebackend/ns-0/backend-0, cachebackend/ns-1/backend-1, cachebackend/ns-2/backend-2\n',
    );
  });
});

describe('terminationSummary: dropping in order when even the codes do not fit', () => {
  const report = makeReport([
    finding('SN001'),
    finding('API001', 'Pod'),
    finding('CB001', 'cachebackend/a/b'),
    finding('CB002', 'cachebackend/a/c'),
  ]);
  const header = 'inferencecache doctor: exit 2; 2 FAIL, 2 WARN, 0 INFO, 0 OK';
  const cases: { name: string; maxBytes: number; want: string }[] = [
    {
      name: 'room for everything',
      maxBytes: 4096,
      want: `${header}\nFAIL SN001 (1)\nFAIL API001 (1): Pod\nWARN CB001 (1): cachebackend/a/b\nWARN CB002 (1): cachebackend/a/c\n`,
    },
    {
      name: 'WARN resources go first',
      maxBytes: 150,
      want: `${header}\nFAIL SN001 (1)\nFAIL API001 (1): Pod\nWARN CB001 (1): cachebackend/a/b\nWARN CB002 (1)\n`,
    },
    {
      name: 'then WARN codes fold into one line',
      maxBytes: 120,
      want: `${header}\nFAIL SN001 (1)\nFAIL API001 (1): Pod\nWARN codes: CB001 CB002\n`,
    },
    { name: 'then FAIL resources go', maxBytes: 117, want: `${header}\nFAIL SN001 (1)\nFAIL API001 (1)\nWARN codes: CB001 CB002\n` },
    { name: 'then FAIL codes fold too', maxBytes: 110, want: `${header}\nFAIL codes: SN001 API001\nWARN codes: CB001 CB002\n` },
    { name: 'last, the text is cut', maxBytes: 80, want: `${header}\nFAIL codes: SN001 API001\nWARN codes: CB001 CB002\n`.slice(0, 80) },
  ];
  it.each(cases)('$name ($maxBytes bytes)', ({ maxBytes, want }) => {
    const text = terminationSummary(report, maxBytes);
    expect(text).toBe(want);
    expect(bytes(text)).toBeLessThanOrEqual(maxBytes);
  });
});

describe('the gates in the termination summary', () => {
  const cb = findingsOf('CacheBackendHealth');
  it('counts suppressed findings and --wait attempts in the header', () => {
    const report = makeReport([cb('CB001', 'cachebackend/a/b', 'm')], {
      failOn: 'FAIL',
      suppressed: [{ finding: cb('CB004', 'cachebackend/a/c', 'old'), rule: { source: '--suppress', match: 'CB004' } }],
      attempts: [
        { attempt: 1, elapsedMs: 10, exitCode: 0, counted: [] },
        { attempt: 2, elapsedMs: 20, exitCode: 0, counted: [] },
      ],
    });
    expect(terminationSummary(report).split('\n')[0]).toBe(
      'inferencecache doctor: exit 0 (--fail-on fail); 0 FAIL, 1 WARN, 0 INFO, 0 OK, 1 suppressed, after 2 attempts',
    );
    expect(terminationSummary(report)).not.toContain('CB004');
  });
});
