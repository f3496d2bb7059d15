/**
 * The single executables `npm run build:exe` writes (scripts/build-exe.ts), and building one when it
 * is older than what it is made of: the tests run the executable the way a krew user does.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bundleFiles, BUNDLE_DIR, ensureBundle } from './bundle.ts';
import { hostPlatform, type ExecutablePlatform } from './node-runtime.ts';
import { PROJECT_ROOT } from './paths.ts';
import { spawnFailure } from './process.ts';

/** The folder of the executables, beside the bundle. */
export const EXECUTABLE_DIR = join(BUNDLE_DIR, 'exe');

/** The executable for `platform`: `dist/exe/inferencecache-linux-amd64`, say. */
export function executablePath(platform: ExecutablePlatform): string {
  return join(EXECUTABLE_DIR, `inferencecache-${platform}`);
}

/** What an executable is made of besides the bundle; a change to one of them rebuilds it. */
const MADE_OF = ['scripts/build-exe.ts', 'scripts/sea/entry.cjs', 'dev/node-runtime.ts', 'dev/executable.ts'].map((f) =>
  join(PROJECT_ROOT, f),
);

/** The newest modification time among what the executables are made of: the bundle's files and {@link MADE_OF}. */
function newestInputMtime(): number {
  return Math.max(...[...bundleFiles().map((f) => join(BUNDLE_DIR, f)), ...MADE_OF].map((file) => statSync(file).mtimeMs));
}

/** Whether the executable for `platform` is missing or older than `newestInput` (a modification time). */
function executableIsStale(platform: ExecutablePlatform, newestInput: number): boolean {
  const exe = executablePath(platform);
  return !existsSync(exe) || statSync(exe).mtimeMs < newestInput;
}

/** The host's platform, or an error saying there is no executable for it. */
export function requireHostPlatform(): ExecutablePlatform {
  const platform = hostPlatform();
  if (platform === undefined) throw new Error(`no single executable is built for ${process.platform}/${process.arch}`);
  return platform;
}

/**
 * Builds the executables for `platforms` (the bundle first when it is stale) unless they are up to
 * date, and returns their paths; throws with the build's output when it fails.
 */
export function ensureExecutables(platforms: readonly ExecutablePlatform[] = [requireHostPlatform()]): string[] {
  ensureBundle();
  const newestInput = newestInputMtime();
  const stale = platforms.filter((platform) => executableIsStale(platform, newestInput));
  if (stale.length > 0) {
    const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts/build-exe.ts'), '--platform', stale.join(',')], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`building the executable failed: ${spawnFailure(result)}`);
  }
  return platforms.map(executablePath);
}
