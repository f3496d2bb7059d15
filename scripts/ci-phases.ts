// Prints the table `.ci/run` ends with: where its time went.
//   node scripts/ci-phases.ts DIR
// DIR holds `phases.tsv` (`.ci/run`'s own phases), `builds.tsv` (hack/build-tools.sh's programs, each
// built in N seconds or found cached), and `node.json` and `main.json` (`npm test`'s lanes,
// scripts/test-lanes.ts). What is missing (a run that stopped early) is left out.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ciTable, parsePhases, type LaneResult, type RunTimes } from './ci/phase-table.ts';

const dir = process.argv[2];
if (dir === undefined) {
  process.stderr.write('usage: node scripts/ci-phases.ts DIR\n');
  process.exit(2);
}
const text = (name: string): string => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '');
const phases = parsePhases(text('phases.tsv'));
const lanes: LaneResult[] = ['node', 'main'].map((name) => {
  const json = text(`${name}.json`);
  return { name, code: 0, times: json === '' ? undefined : (JSON.parse(json) as RunTimes) };
});
const testSeconds = phases.find((p) => p.name === 'tests (npm test)')?.seconds ?? 0;
process.stdout.write(`${ciTable(phases, parsePhases(text('builds.tsv')), lanes, testSeconds)}\n`);
