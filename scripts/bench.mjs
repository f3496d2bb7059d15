// Start-up figures of the built bundle, the way the image runs it: its size, and the median wall time of
// `inferencecache --version` and `--help` over 20 runs each (after one warm-up) with this Node, from an
// empty folder, beside a bare `node -e ''` for the floor. The bar (docs/architecture.md#bars) is 100 ms median for
// both. Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BUNDLE, BUNDLE_DIR, bundleFiles } from '../dev/bundle.ts';

const RUNS = 20;
const BAR_MS = 100;

const bundle = BUNDLE;
if (!existsSync(bundle)) {
  console.error(`${bundle} is missing: run \`npm run build\` first`);
  process.exit(1);
}
// The entry and every chunk it imports, however deep: what a copy of the bundle must hold.
const files = bundleFiles().map((file) => join(BUNDLE_DIR, file));
const size = files.reduce((sum, file) => sum + statSync(file).size, 0);

const cwd = mkdtempSync(join(tmpdir(), 'icd-bench-'));
const once = (args) => {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
};
/** Median, min and max of RUNS runs of `args`, interleaved with the others so load hits all alike. */
const commands = { 'node -e ""': ['-e', ''], '--version': [bundle, '--version'], '--help': [bundle, '--help'] };
const times = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
for (const args of Object.values(commands)) once(args);
for (let i = 0; i < RUNS; i++) for (const [name, args] of Object.entries(commands)) times[name].push(once(args));
rmSync(cwd, { recursive: true, force: true });

const fmt = (ms) => `${ms.toFixed(1)} ms`;
const median = (list) => {
  const s = [...list].sort((a, b) => a - b);
  return (s[RUNS / 2 - 1] + s[RUNS / 2]) / 2;
};
console.log(`bundle              ${bundle}`);
console.log(`size                ${size} bytes (${(size / 1024 / 1024).toFixed(2)} MiB) in ${files.length} files`);
console.log(`node                ${process.version}`);
let met = true;
for (const [name, list] of Object.entries(times)) {
  const m = median(list);
  if (name !== 'node -e ""') met &&= m <= BAR_MS;
  console.log(`${name.padEnd(12)} ${RUNS} runs  median ${fmt(m)}, min ${fmt(Math.min(...list))}, max ${fmt(Math.max(...list))}`);
}
console.log(`start-up bar        ${BAR_MS} ms for --version and --help: ${met ? 'met' : 'MISSED'}`);
