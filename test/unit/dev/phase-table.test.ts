// The phase table `.ci/run` ends with (scripts/ci/phase-table.ts): figures in, aligned text out, the
// slowest files first and at most SLOWEST of them, counts over every lane.
import { describe, expect, it } from 'vitest';
import { SLOWEST, ciTable, laneSummary, parsePhases, type FileTime, type LaneResult } from '../../../scripts/ci/phase-table.ts';

const file = (project: string, name: string, seconds: number, passed = 1, failed = 0, skipped = 0): FileTime => ({
  project,
  file: `test/${name}.test.ts`,
  seconds,
  passed,
  failed,
  skipped,
});
const lane = (name: string, code: number, files: FileTime[], seconds: number): LaneResult => ({
  name,
  code,
  times: { startedAt: 1_000_000, endedAt: 1_000_000 + seconds * 1000, files },
});

describe('the phase table', () => {
  it('lists each lane, each project as the sum of its files, and the slowest files first', () => {
    const summary = laneSummary(
      [
        lane('node', 0, [file('node', 'node', 337.4), file('node', 'argocd', 173)], 520),
        lane('main', 1, [file('unit', 'a', 2, 10), file('unit', 'b', 1.2, 3, 1), file('integration', 'faults', 147, 5, 0, 2)], 160),
      ],
      530.6,
    );
    expect(summary.table).toBe(
      [
        "where the tests' time went (seconds)",
        'tests, every lane at once (wall)                      531',
        '  lane node                                           520',
        '  lane main (exit 1)                                  160',
        '  project integration (its files, one after another)  147',
        '  project node (its files, one after another)         510',
        '  project unit (its files, one after another)           3',
        '   1. test/node.test.ts (node)                        337',
        '   2. test/argocd.test.ts (node)                      173',
        '   3. test/faults.test.ts (integration)               147',
        '   4. test/a.test.ts (unit)                             2',
        '   5. test/b.test.ts (unit)                             1',
      ].join('\n'),
    );
    expect([summary.passed, summary.failed, summary.skipped]).toEqual([20, 1, 2]);
  });

  it('counts a file that failed with no test failed (its beforeAll, its import) as one failure', () => {
    const broken = { ...file('node', 'argocd', 1, 0, 0, 6), fileFailed: true };
    const failing = { ...file('node', 'flux', 1, 2, 1, 0), fileFailed: true };
    const summary = laneSummary([lane('node', 1, [broken, failing, file('node', 'node', 1, 3)], 3)], 3);
    expect([summary.passed, summary.failed, summary.skipped]).toEqual([5, 2, 6]);
  });

  it(`lists at most the ${String(SLOWEST)} slowest files, and says when a lane wrote no figures`, () => {
    const files = Array.from({ length: SLOWEST + 5 }, (_, i) => file('unit', `f${String(i)}`, i));
    const summary = laneSummary([lane('main', 0, files, 200), { name: 'node', code: 1, times: undefined }], 200);
    const listed = summary.table.split('\n').filter((l) => /^\s+\d+\. /.test(l));
    expect(listed).toHaveLength(SLOWEST);
    expect(listed[0]).toMatch(/f19\.test\.ts \(unit\)\s+19$/);
    expect(summary.table).toMatch(/lane node \(exit 1\)\s+\?$/m);
  });

  it(".ci/run's table: its phases, each program built or cached, then the tests", () => {
    const phases = parsePhases('npm ci\t29\nDebian packages\t43\n\nprograms (hack/build-tools.sh)\t1400\ntests (npm test)\t1200\n');
    const builds = parsePhases('etcd-v3.6.16/etcd\t52\nhelm-v3.21.4/helm\tcached\nodd\tnot-a-number\n');
    expect(builds).toEqual([
      { name: 'etcd-v3.6.16/etcd', seconds: 52 },
      { name: 'helm-v3.21.4/helm', seconds: undefined },
      { name: 'odd', seconds: undefined },
    ]);
    const table = ciTable(phases, builds, [lane('main', 0, [file('unit', 'a', 2)], 2)], 1200).split('\n');
    expect(table.slice(0, 9)).toEqual([
      "where .ci/run's time went (seconds)",
      'npm ci                              29',
      'Debian packages                     43',
      'programs (hack/build-tools.sh)    1400',
      'tests (npm test)                  1200',
      '  built etcd-v3.6.16/etcd           52',
      '  built helm-v3.21.4/helm       cached',
      '  built odd                     cached',
      "where the tests' time went (seconds)",
    ]);
  });
});
