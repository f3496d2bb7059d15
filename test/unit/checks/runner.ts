/** Runs the check tables with vitest. Kept apart from fixtures.ts so *.cases.ts modules stay vitest-free. */
import { describe, expect, it } from 'vitest';
import { judge } from '../../../src/checks/index.ts';
import type { Finding } from '../../../src/report/finding.ts';
import { SPEC_STATUS, type CheckTable, type Fact, type JudgeCase } from './fixtures.ts';

/** The parts of a finding that must match exactly; `resource` only when the property exists. */
export function shape(f: Finding): Record<string, unknown> {
  const out: Record<string, unknown> = { code: f.code, status: f.status, check: f.check };
  if ('resource' in f) out['resource'] = f.resource;
  return out;
}

function expectFacts(message: string, facts: readonly Fact[] = [], absent: readonly Fact[] = []): void {
  for (const fact of facts) {
    if (typeof fact === 'string') expect(message).toContain(fact);
    else expect(message).toMatch(fact);
  }
  for (const fact of absent) {
    if (typeof fact === 'string') expect(message).not.toContain(fact);
    else expect(message).not.toMatch(fact);
  }
}

function expectWellFormed(findings: readonly Finding[]): void {
  for (const f of findings) {
    expect(f.message.length).toBeGreaterThan(0);
    expect(f.message).not.toContain('\n');
  }
}

/** One `it` per case: code, status, check, resource and order exactly; message facts by substring. */
export function runTable(table: CheckTable): void {
  describe(table.checkName, () => {
    it.each(table.cases)('$name', ({ input, expected }) => {
      const got = table.check(input);
      expect(got.map(shape)).toStrictEqual(
        expected.map(([code, resource]) => ({
          code,
          status: SPEC_STATUS[code],
          check: table.checkName,
          ...(resource === undefined ? {} : { resource }),
        })),
      );
      expectWellFormed(got);
      expected.forEach(([, , facts, absent], i) => expectFacts(got[i]?.message ?? '', facts, absent));
    });
  });
}

/** Same, for whole runs through `judge()`. */
export function runJudgeTable(cases: readonly JudgeCase[]): void {
  describe('judge()', () => {
    it.each(cases)('$name', ({ input, expected }) => {
      const got = judge(input);
      expect(got.map(shape)).toStrictEqual(
        expected.map(([check, code, resource]) => ({
          code,
          status: SPEC_STATUS[code],
          check,
          ...(resource === undefined ? {} : { resource }),
        })),
      );
      expectWellFormed(got);
      expected.forEach(([, , , facts], i) => expectFacts(got[i]?.message ?? '', facts));
    });
  });
}
