// Start-up figures of the built bundle, the way the image runs it: its size, and the median wall time of
// `inferencecache --version` and `--help` over 20 runs each (after one warm-up) with this Node, from an
// empty folder, beside a bare `node -e ''` for the floor. The bar (docs/architecture.md#bars) is 100 ms median for
// both. Run `npm run build` first. When `npm run build:exe` has built the host's single executable, its
// `--version` and `--help` run interleaved with the rest, with the ratio to the bundle under `node`: the
// executable must not start slower (docs/distribution.md).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BUNDLE, BUNDLE_DIR, bundleFiles } from '../dev/bundle.ts';
import { executablePath } from '../dev/executable.ts';
import { hostPlatform } from '../dev/node-runtime.ts';

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
const once = ([program, ...args]) => {
  const started = performance.now();
  const run = spawnSync(program, args, { cwd, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
};
/** Median, min and max of RUNS runs of `args`, interleaved with the others so load hits all alike. */
const node = process.execPath;
const commands = { 'node -e ""': [node, '-e', ''], '--version': [node, bundle, '--version'], '--help': [node, bundle, '--help'] };
const platform = hostPlatform();
const exe = platform === undefined ? undefined : executablePath(platform);
if (exe !== undefined && existsSync(exe)) {
  commands['exe --version'] = [exe, '--version'];
  commands['exe --help'] = [exe, '--help'];
}
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
  console.log(`${name.padEnd(14)} ${RUNS} runs  median ${fmt(m)}, min ${fmt(Math.min(...list))}, max ${fmt(Math.max(...list))}`);
}
if (times['exe --version'] !== undefined) {
  console.log(`executable          ${exe}: ${statSync(exe).size} bytes (${(statSync(exe).size / 1e6).toFixed(1)} MB)`);
  for (const name of ['--version', '--help'])
    console.log(`exe/bundle ${name.padEnd(9)} ${(median(times[`exe ${name}`]) / median(times[name])).toFixed(2)}x (medians)`);
}
console.log(`start-up bar        ${BAR_MS} ms for --version and --help: ${met ? 'met' : 'MISSED'}`);
