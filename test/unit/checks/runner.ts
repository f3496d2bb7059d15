/** Runs the check tables with vitest. Kept apart from fixtures.ts so *.cases.ts modules stay vitest-free. */
import { describe, expect, it } from 'vitest';
import { codeTable } from '../../../src/checks/codes.ts';
import { judge } from '../../../src/checks/registry.ts';
import { runCheck } from '../../../src/checks/run.ts';
import type { Finding } from '../../../src/report/finding.ts';
import type { Status } from '../../../src/report/status.ts';
import type { CheckTable, Fact, JudgeCase } from './fixtures.ts';

const STATUS_OF = new Map<string, Status>(codeTable().map((row) => [row.code, row.status]));

/** The status the code table gives a code; a test fails on a code the table does not know. */
function statusOf(code: string): Status {
  const status = STATUS_OF.get(code);
  if (status === undefined) throw new Error(`${code} is not in the code table`);
  return status;
}

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
  describe(table.check.name, () => {
    it.each(table.cases)('$name', ({ input, expected }) => {
      const got = runCheck(table.check, input);
      expect(got.map(shape)).toStrictEqual(
        expected.map(([code, resource]) => ({
          code,
          status: statusOf(code),
          check: table.check.name,
          ...(resource === undefined ? {} : { resource }),
        })),
      );
      expectWellFormed(got);
      expected.forEach(([, , facts, absent], i) => expectFacts(got[i]?.message ?? '', facts, absent));
    });
  });
}

/** Same, for whole runs through `judge()`: the findings of the checks in `judged`, in run order. */
export function runJudgeTable(cases: readonly JudgeCase[], judged: ReadonlySet<string>): void {
  describe('judge()', () => {
    it.each(cases)('$name', ({ input, expected }) => {
      const got = judge(input).filter((f) => judged.has(f.check));
      expect(got.map(shape)).toStrictEqual(
        expected.map(([check, code, resource]) => ({
          code,
          status: statusOf(code),
          check,
          ...(resource === undefined ? {} : { resource }),
        })),
      );
      expectWellFormed(got);
      expected.forEach(([, , , facts], i) => expectFacts(got[i]?.message ?? '', facts));
    });
  });
}
