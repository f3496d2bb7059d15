import { describe, expect, it } from 'vitest';
import { CHECKS, judge } from '../../../src/checks/index.ts';
import { CHECK_NAMES } from '../../../src/report/codes.ts';
import { everythingFailing, judgeCases } from './judge.cases.ts';
import { runJudgeTable } from './runner.ts';

runJudgeTable(judgeCases);

describe('run order', () => {
  it('CHECKS lists one function per check name', () => {
    expect(CHECKS.length).toBe(CHECK_NAMES.length);
  });

  it('an everything-failing run visits the checks in CHECK_NAMES order, each once', () => {
    const seen = judge(everythingFailing).map((f) => f.check);
    const distinct = seen.filter((c, i) => c !== seen[i - 1]);
    expect(distinct).toStrictEqual([...CHECK_NAMES]);
  });

  it('judge is pure: same input, same findings', () => {
    expect(judge(everythingFailing)).toStrictEqual(judge(everythingFailing));
  });
});
