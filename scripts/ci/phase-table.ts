/**
 * Where a test run's time went, as a table: the phases `.ci/run` timed (npm ci, the Debian packages,
 * each program built or found cached), each vitest project, and the slowest test files. `npm test`
 * prints the part about the tests (scripts/test-lanes.ts); `.ci/run` prints the whole
 * (scripts/ci-phases.ts). Pure: figures in, text out.
 *
 * @module
 */

/** One test file's figures, as vitest's timing reporter writes them (test/support/timing-reporter.ts). */
export interface FileTime {
  readonly project: string;
  /** The file's path from the project's root. */
  readonly file: string;
  /** Everything vitest spent on the file: import, collection, hooks and tests. */
  readonly seconds: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** The file itself failed (a hook, its import) with no test of it failed: counted as one failure. */
  readonly fileFailed?: boolean;
}

/** The figures of one vitest process: when it started and ended (ms since the epoch), and each file. */
export interface RunTimes {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly files: readonly FileTime[];
}

/** One lane of `npm test`: a vitest process, its exit code and its figures (none when it wrote none). */
export interface LaneResult {
  readonly name: string;
  readonly code: number;
  readonly times: RunTimes | undefined;
}

/** A phase `.ci/run` timed, or a program hack/build-tools.sh built (`seconds` undefined: found cached). */
export interface Phase {
  readonly name: string;
  readonly seconds: number | undefined;
}

/** How many of the slowest test files the table lists. */
export const SLOWEST = 15;

const fmt = (seconds: number | undefined): string => (seconds === undefined ? 'cached' : String(Math.round(seconds)));

/** Rows as two aligned columns: the name left, the figure right. */
function rows(lines: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(0, ...lines.map(([name]) => name.length));
  const figure = Math.max(0, ...lines.map(([, value]) => value.length));
  return lines.map(([name, value]) => `${name.padEnd(width)}  ${value.padStart(figure)}`);
}

/** The tests' part of the table, and the counts over every lane. */
export function laneSummary(
  lanes: readonly LaneResult[],
  wallSeconds: number,
): { table: string; passed: number; failed: number; skipped: number } {
  const files = lanes.flatMap((l) => l.times?.files ?? []);
  const projects = new Map<string, number>();
  for (const f of files) projects.set(f.project, (projects.get(f.project) ?? 0) + f.seconds);
  const lines: [string, string][] = [[`tests, every lane at once (wall)`, fmt(wallSeconds)]];
  for (const l of lanes) {
    const seconds = l.times === undefined ? undefined : (l.times.endedAt - l.times.startedAt) / 1000;
    lines.push([`  lane ${l.name}${l.code === 0 ? '' : ` (exit ${String(l.code)})`}`, seconds === undefined ? '?' : fmt(seconds)]);
  }
  for (const [name, seconds] of [...projects].sort(([a], [b]) => a.localeCompare(b)))
    lines.push([`  project ${name} (its files, one after another)`, fmt(seconds)]);
  const slowest = [...files].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);
  slowest.forEach((f, i) => lines.push([`  ${String(i + 1).padStart(2)}. ${f.file} (${f.project})`, fmt(f.seconds)]));
  const sum = (key: 'passed' | 'failed' | 'skipped') => files.reduce((n, f) => n + f[key], 0);
  return {
    table: ["where the tests' time went (seconds)", ...rows(lines)].join('\n'),
    passed: sum('passed'),
    failed: sum('failed') + files.filter((f) => f.fileFailed === true && f.failed === 0).length,
    skipped: sum('skipped'),
  };
}

/** The whole table of a `.ci/run`: its phases and builds, then the tests' part. */
export function ciTable(phases: readonly Phase[], builds: readonly Phase[], lanes: readonly LaneResult[], testSeconds: number): string {
  const lines: [string, string][] = [];
  for (const p of phases) lines.push([p.name, fmt(p.seconds)]);
  for (const b of builds) lines.push([`  built ${b.name}`, fmt(b.seconds)]);
  const head = rows(lines);
  const tests = laneSummary(lanes, testSeconds);
  return ["where .ci/run's time went (seconds)", ...head, tests.table].join('\n');
}

/** Reads `name<TAB>seconds` lines (`cached`, or nothing, for a program found built); skips blank ones. */
export function parsePhases(text: string): Phase[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [name = '', value = ''] = l.split('\t');
      const n = Number(value);
      return { name, seconds: value === '' || value === 'cached' || !Number.isFinite(n) ? undefined : n };
    });
}
