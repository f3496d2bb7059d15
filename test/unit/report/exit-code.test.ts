// The exit code under each --fail-on: only findings at or above the threshold count; 2 when a FAIL
// counts, 1 when anything else does, 0 when nothing does; an incomplete report exits 4 whatever.
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../../src/report/exit-codes.ts';
import { makeReport, type Finding } from '../../../src/report/finding.ts';
import type { Status } from '../../../src/report/status.ts';

const finding = (status: Status): Finding => ({ code: `X${status}`, status, check: 'Test', message: status });
const of = (...statuses: Status[]) => statuses.map(finding);

describe('exit code by --fail-on', () => {
  it.each<[string, Finding[], Record<Status, number>]>([
    ['nothing', [], { OK: 0, INFO: 0, WARN: 0, FAIL: 0 }],
    ['only OK', of('OK', 'OK'), { OK: 1, INFO: 0, WARN: 0, FAIL: 0 }],
    ['OK and INFO', of('OK', 'INFO'), { OK: 1, INFO: 1, WARN: 0, FAIL: 0 }],
    ['a WARN', of('OK', 'WARN', 'INFO'), { OK: 1, INFO: 1, WARN: 1, FAIL: 0 }],
    ['a FAIL', of('FAIL', 'OK'), { OK: 2, INFO: 2, WARN: 2, FAIL: 2 }],
    ['a WARN and a FAIL', of('WARN', 'FAIL'), { OK: 2, INFO: 2, WARN: 2, FAIL: 2 }],
  ])('%s', (_, findings, want) => {
    for (const failOn of ['OK', 'INFO', 'WARN', 'FAIL'] as const) {
      expect({ failOn, exitCode: makeReport(findings, { failOn: failOn }).summary.exitCode }).toEqual({ failOn, exitCode: want[failOn] });
    }
  });

  it('is WARN unless told, and the summary names only another threshold', () => {
    expect(makeReport(of('WARN')).summary).toEqual({ ok: 0, info: 0, warn: 1, fail: 0, exitCode: 1 });
    expect(makeReport(of('WARN'), { failOn: 'WARN' }).summary).not.toHaveProperty('failOn');
    expect(makeReport(of('WARN'), { failOn: 'FAIL' }).summary).toEqual({ ok: 0, info: 0, warn: 1, fail: 0, exitCode: 0, failOn: 'FAIL' });
  });

  it('does not make an incomplete report pass', () => {
    expect(makeReport(of('WARN'), { incomplete: 'interrupted by SIGTERM', failOn: 'FAIL' }).summary).toMatchObject({
      exitCode: EXIT_CODES.interrupted,
      failOn: 'FAIL',
    });
  });
});
