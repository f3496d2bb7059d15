// `npm run build:exe`: the doctor as one file that needs no Node installed, for linux/amd64 and
// linux/arm64 (dist/exe/inferencecache-linux-<arch>), with Node's single-executable applications.
//
// What goes in: Node's own build for the platform (dev/node-runtime.ts: pinned; its symbol tables are
// stripped here) and one blob holding scripts/sea/entry.cjs and the bundle's files exactly as `npm run build`
// writes them, as assets. The blob has no code cache and no snapshot, so the one blob serves both
// platforms (a code cache would tie it to the CPU it was made on); start-up stays as fast as the bundle
// under `node` because chunks are still compiled only when a command first imports them
// (docs/distribution.md has the figures).
//
//   node scripts/build-exe.ts [--platform linux-amd64,linux-arm64]
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { inject } from 'postject';
import { BUNDLE_DIR, bundleFiles, ensureBundle } from '../dev/bundle.ts';
import { EXECUTABLE_DIR, executablePath } from '../dev/executable.ts';
import { EXECUTABLE_PLATFORMS, NODE_RUNTIME_VERSION, RUNTIMES, nodeRuntime, parsePlatforms } from '../dev/node-runtime.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';
import { spawnFailure } from '../dev/process.ts';

/** The resource and fuse Node looks for in a single executable (Node's documentation names both). */
const SEA_RESOURCE = 'NODE_SEA_BLOB';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const { values } = parseArgs({ options: { platform: { type: 'string', default: EXECUTABLE_PLATFORMS.join(',') } } });
const platforms = parsePlatforms(values.platform ?? '');

// The blob must be written by the Node version that will run it.
if (process.versions.node !== NODE_RUNTIME_VERSION)
  throw new Error(`this is Node ${process.versions.node}; the executables are Node ${NODE_RUNTIME_VERSION}: run it as npm run build:exe`);

const started = performance.now();
ensureBundle();
const work = mkdtempSync(join(tmpdir(), 'icd-exe-'));
try {
  const blob = join(work, 'sea.blob');
  const assets = Object.fromEntries(bundleFiles().map((file) => [file, join(BUNDLE_DIR, file)]));
  writeFileSync(
    join(work, 'sea-config.json'),
    JSON.stringify({
      main: join(PROJECT_ROOT, 'scripts/sea/entry.cjs'),
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
      useSnapshot: false,
      assets,
    }),
  );
  const made = spawnSync(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`writing the blob failed: ${made.stderr}`);
  const blobBytes = readFileSync(blob);
  mkdirSync(EXECUTABLE_DIR, { recursive: true });
  for (const platform of platforms) {
    const t0 = performance.now();
    const runtime = nodeRuntime(platform);
    const exe = join(work, `exe-${platform}`);
    copyFileSync(runtime.node, exe);
    // Node's builds keep their symbol tables (about 20 MB); the executable runs the same without them
    // (native addons link against the dynamic symbols, which stay).
    const stripped = spawnSync(RUNTIMES[platform].strip, ['--strip-all', exe], { encoding: 'utf8' });
    if (stripped.status !== 0) throw new Error(`${RUNTIMES[platform].strip} failed: ${spawnFailure(stripped)}`);
    // postject's ELF library reports a few notes it does not name on stderr; they are harmless.
    await inject(exe, SEA_RESOURCE, blobBytes, { sentinelFuse: SEA_FUSE });
    chmodSync(exe, 0o755);
    const out = executablePath(platform);
    copyFileSync(runtime.license, `${out}.node-license`);
    renameSync(exe, out);
    const mb = (statSync(out).size / 1e6).toFixed(1);
    console.log(`${out}: ${mb} MB (blob ${(blobBytes.length / 1e6).toFixed(1)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  console.log(`built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
