import { describe, expect, it } from 'vitest';
import { CHECKS, judge } from '../../../src/checks/registry.ts';
import { JUDGED_CHECKS, everythingFailing, judgeCases } from './judge.cases.ts';
import { runJudgeTable } from './runner.ts';

runJudgeTable(judgeCases, JUDGED_CHECKS);

describe('run order', () => {
  it('an everything-failing run visits the checks in registry order, each once', () => {
    const seen = judge(everythingFailing).map((f) => f.check);
    const distinct = seen.filter((c, i) => c !== seen[i - 1]);
    expect(distinct).toStrictEqual(CHECKS.map((c) => c.name));
  });

  it('judge is pure: same input, same findings', () => {
    expect(judge(everythingFailing)).toStrictEqual(judge(everythingFailing));
  });
});
