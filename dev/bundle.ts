/**
 * The bundle `npm run build` writes, and building it when a source is newer: the demo, the benchmarks
 * and the tests run the bundle the way users and the image do.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './paths.ts';

/** The bundle `npm run build` writes; process tests run it the way users and the image do. */
export const BUNDLE = join(PROJECT_ROOT, 'dist/inferencecache.mjs');

/** Whether the bundle is missing or older than a file it is built from. */
export function bundleIsStale(): boolean {
  if (!existsSync(BUNDLE)) return true;
  const built = statSync(BUNDLE).mtimeMs;
  const sources = readdirSync(join(PROJECT_ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
  return [
    ...sources,
    join(PROJECT_ROOT, 'package.json'),
    join(PROJECT_ROOT, 'package-lock.json'),
    join(PROJECT_ROOT, 'scripts/build.mjs'),
    join(PROJECT_ROOT, 'scripts/bundle/loader.mjs'),
  ].some((file) => statSync(file).mtimeMs > built);
}

/** Builds the bundle (`npm run build`) unless it is up to date; throws with esbuild's output when the build fails. */
export function ensureBundle(): void {
  if (!bundleIsStale()) return;
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts/build.mjs')], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`building the bundle failed: ${result.stderr || result.error?.message || `exit ${result.status ?? 'by a signal'}`}`);
}

/** Fails with a clear message when the bundle has not been built. */
export function requireBundle(): string {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first (npm test does)`);
  return BUNDLE;
}
