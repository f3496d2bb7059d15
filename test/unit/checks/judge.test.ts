import { describe, expect, it } from 'vitest';
import { CHECKS, judge } from '../../../src/checks/registry.ts';
import { JUDGED_CHECKS, everythingFailing, judgeCases } from './judge.cases.ts';
import { runJudgeTable } from './runner.ts';

runJudgeTable(judgeCases, JUDGED_CHECKS);

describe('run order', () => {
  it('an everything-failing run visits the checks in registry order, each once', () => {
    const seen = judge(everythingFailing).map((f) => f.check);
    const distinct = seen.filter((c, i) => c !== seen[i - 1]);
    // Every check whose reads the fixture holds, in registry order: upstream's nine and ours at least.
    expect(distinct).toStrictEqual(CHECKS.map((c) => c.name).filter((name) => distinct.includes(name)));
    expect(distinct.length).toBeGreaterThanOrEqual(14);
  });

  it('judge is pure: same input, same findings', () => {
    expect(judge(everythingFailing)).toStrictEqual(judge(everythingFailing));
  });
});
