// `npm test`: the type check and lint, and every vitest project, in three lanes at once, then a table of
// where the time went and one closing line with the counts.
//   checks: `tsc --noEmit`, then ESLint and Prettier (`npm run lint`)
//   node:   vitest's project `node` (the real node's suites and the image builds; vitest.config.ts)
//   main:   the projects unit, integration and integration-oldest
// The node suites spend most of their time waiting for pods to start, images to pull and hooks to end;
// the other lanes use the cores meanwhile. Each lane runs one test file at a time (vitest.config.ts),
// so no suite runs beside another of its own kind. Each lane's output lines carry its name.
//
// With arguments (`npm test -- test/unit/x.test.ts`, `npm test -- --project unit`) it runs one
// `vitest run` with them instead, as before lanes.
//
// Env: TEST_PHASES_DIR, when set, receives each lane's figures (`<lane>.json`, read by
// scripts/ci-phases.ts for `.ci/run`'s phase table); otherwise they are written to the run's TMPDIR.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ensureBundle } from '../dev/bundle.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';
import { laneSummary, type LaneResult } from './ci/phase-table.ts';

const bin = (name: string) => join(PROJECT_ROOT, 'node_modules', '.bin', name);
const extra = process.argv.slice(2);
const children = new Set<ChildProcess>();

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill(signal);
    // A second signal, or children that do not end, must still end this process.
    setTimeout(() => process.exit(130), 30_000).unref();
  });
}

/** Runs `command` with its output lines prefixed by `label`; resolves with its exit code. */
function run(label: string, command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const prefix = label === '' ? '' : `${label.padEnd(6)}│ `;
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => out.write(`${prefix}${line}\n`));
    }
    child.on('error', (err) => {
      process.stderr.write(`${prefix}${command}: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal === null ? 1 : 128));
    });
  });
}

/** One command after another, stopping at the first that fails. */
async function sequence(label: string, steps: readonly (readonly [string, readonly string[]])[]): Promise<number> {
  for (const [command, args] of steps) {
    const code = await run(label, command, args);
    if (code !== 0) return code;
  }
  return 0;
}

if (extra.length > 0) {
  process.exitCode = await run('', bin('vitest'), ['run', ...extra]);
} else {
  const dir = process.env['TEST_PHASES_DIR'] ?? tmpdir();
  mkdirSync(dir, { recursive: true });
  // Built once here, not by each lane's global setup at the same moment.
  ensureBundle();
  const started = Date.now();
  const lane = async (name: string, projects: readonly string[]): Promise<LaneResult> => {
    const timesFile = join(dir, `${name}.json`);
    const code = await run(name, bin('vitest'), ['run', ...projects.flatMap((p) => ['--project', p])], {
      ...process.env,
      TEST_TIMES_FILE: timesFile,
    });
    let times: LaneResult['times'];
    try {
      times = JSON.parse(readFileSync(timesFile, 'utf8')) as LaneResult['times'];
    } catch {
      times = undefined;
    }
    return { name, code, times };
  };
  const [checks, node, main] = await Promise.all([
    sequence('checks', [
      [bin('tsc'), ['--noEmit']],
      ['npm', ['run', '-s', 'lint']],
    ]),
    lane('node', ['node']),
    lane('main', ['unit', 'integration', 'integration-oldest']),
  ]);
  const summary = laneSummary([node, main], (Date.now() - started) / 1000);
  process.stdout.write(`\n${summary.table}\n`);
  if (checks !== 0) process.stdout.write('the type check or the lint failed (lines marked "checks" above)\n');
  for (const l of [node, main])
    if (l.times === undefined) process.stdout.write(`lane ${l.name} wrote no figures (exit ${String(l.code)})\n`);
  // The one closing line, counted over both lanes.
  process.stdout.write(`${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped\n`);
  process.exitCode = checks !== 0 || node.code !== 0 || main.code !== 0 ? 1 : 0;
}
