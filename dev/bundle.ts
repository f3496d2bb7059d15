/**
 * The bundle `npm run build` writes, and building it when a source is newer: the demo, the benchmarks
 * and the tests run the bundle the way users and the image do.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { PROJECT_ROOT } from './paths.ts';
import { spawnFailure } from './process.ts';

/** The folder `npm run build` writes the bundle to (beside other build products, such as the image archive). */
export const BUNDLE_DIR = join(PROJECT_ROOT, 'dist');
/** The bundle's entry, the package's command; process tests run it the way users and the image do. */
export const BUNDLE = join(BUNDLE_DIR, 'inferencecache.mjs');

/** A relative import between the bundle's files, as esbuild writes it: static, for side effects, or dynamic. */
const CHUNK_IMPORT = /\b(?:from|import)\s*\(?\s*"(\.\.?\/(?:chunks\/)?chunk-\w+\.mjs)"/g;

/**
 * The bundle's files, relative to its folder (`dir`: {@link BUNDLE_DIR}, or a copy of it): the entry
 * and every chunk it imports, directly or through another chunk, at once or when a command first needs
 * it. Chunks of an earlier build that `npm run build` keeps for a while (for processes still running
 * it) are not among them.
 */
export function bundleFiles(dir: string = BUNDLE_DIR): string[] {
  const found = new Set<string>();
  const visit = (file: string): void => {
    if (found.has(file)) return;
    found.add(file);
    for (const match of readFileSync(join(dir, file), 'utf8').matchAll(CHUNK_IMPORT)) {
      visit(posix.join(posix.dirname(file), match[1] ?? ''));
    }
  };
  visit(posix.basename(BUNDLE));
  return [...found].sort();
}

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
    join(PROJECT_ROOT, 'dev/package.ts'),
  ].some((file) => statSync(file).mtimeMs > built);
}

/** Builds the bundle (`npm run build`) unless it is up to date; throws with esbuild's output when the build fails. */
export function ensureBundle(): void {
  if (!bundleIsStale()) return;
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts/build.mjs')], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the bundle failed: ${spawnFailure(result)}`);
}

/** Fails with a clear message when the bundle has not been built. */
export function requireBundle(): string {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first (npm test does)`);
  return BUNDLE;
}
