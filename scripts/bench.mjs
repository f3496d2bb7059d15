// Start-up figures of the built bundle, the way the image runs it: its size, and the median wall time of
// `inferencecache --version` over 10 runs (after one warm-up) with this Node, from an empty folder.
// The design's bar for start-up is 150 ms. Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const RUNS = 10;
const BAR_MS = 150;

const root = new URL('..', import.meta.url).pathname;
// The file the package declares as its command, which is what `npm run build` writes.
const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const bundle = join(root, bin.inferencecache);

let size;
try {
  size = statSync(bundle).size;
} catch {
  console.error(`${bundle} is missing: run \`npm run build\` first`);
  process.exit(1);
}

const cwd = mkdtempSync(join(tmpdir(), 'icd-bench-'));
const once = () => {
  const started = performance.now();
  const run = spawnSync(process.execPath, [bundle, '--version'], { cwd, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`--version exited ${run.status}: ${run.stderr}`);
  return ms;
};

once();
const times = Array.from({ length: RUNS }, once).sort((a, b) => a - b);
rmSync(cwd, { recursive: true, force: true });
const median = (times[RUNS / 2 - 1] + times[RUNS / 2]) / 2;

const fmt = (ms) => `${ms.toFixed(1)} ms`;
console.log(`bundle              ${bundle}`);
console.log(`size                ${size} bytes (${(size / 1024 / 1024).toFixed(2)} MiB)`);
console.log(`node                ${process.version}`);
console.log(`--version, ${RUNS} runs   median ${fmt(median)}, min ${fmt(times[0])}, max ${fmt(times[RUNS - 1])}`);
console.log(`start-up bar        ${BAR_MS} ms: ${median <= BAR_MS ? 'met' : 'MISSED'}`);
