// A vitest reporter that writes each test file's time and outcome to the JSON file TEST_TIMES_FILE names
// (nothing when it is unset), for the phase table `.ci/run` ends with (scripts/ci-phases.ts). A file's
// time counts everything vitest spends on it: import and collection, its hooks (a node suite's
// beforeAll starts the node) and its tests. Vitest's own JSON reporter counts only from the first test
// to the last, which leaves the hooks out.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import type { FileTime, RunTimes } from '../../scripts/ci/phase-table.ts';

function fileTime(module: TestModule): FileTime {
  const d = module.diagnostic();
  const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const test of module.children.allTests()) {
    const state = test.result().state;
    if (state === 'passed') counts.passed += 1;
    else if (state === 'failed') counts.failed += 1;
    else counts.skipped += 1;
  }
  return {
    project: module.project.name,
    file: relative(PROJECT_ROOT, module.moduleId),
    seconds: Math.round(ms) / 1000,
    ...counts,
    fileFailed: module.state() === 'failed',
  };
}

export default class TimingReporter implements Reporter {
  private readonly startedAt = Date.now();

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const out = process.env['TEST_TIMES_FILE'];
    if (out === undefined || out === '') return;
    const times: RunTimes = { startedAt: this.startedAt, endedAt: Date.now(), files: modules.map(fileTime) };
    writeFileSync(out, `${JSON.stringify(times, null, 1)}\n`);
  }
}
