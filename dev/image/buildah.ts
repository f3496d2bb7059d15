// buildah as the image scripts run it: its own storage under the project's cache folder (outside
// the repository, like the control-plane binaries), vfs so that no overlay mount is needed.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT, cacheRoot } from '../paths.ts';

/** The image the Dockerfile builds, as local storage names it. */
export const IMAGE_NAME = 'localhost/inferencecache-doctor';
/** Where `npm run image` writes the image. */
export const IMAGE_ARCHIVE = join(PROJECT_ROOT, 'dist', 'inferencecache-doctor.oci.tar');
/** buildah's storage: in the cache folder hack/ builds into. */
export const STORAGE = join(cacheRoot(), 'buildah');

const GLOBAL = ['--root', join(STORAGE, 'root'), '--runroot', join(STORAGE, 'run'), '--storage-driver', 'vfs'];

/** Runs buildah with the project's storage, its output on ours; throws when it fails. */
export function buildah(args: readonly string[]): void {
  const run = spawnSync('buildah', [...GLOBAL, ...args], { stdio: 'inherit' });
  if (run.error !== undefined) throw new Error(`buildah could not start (apt-get install buildah): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`buildah ${args[0] ?? ''} failed with exit code ${run.status ?? run.signal ?? '?'}`);
}

/** Runs buildah and returns its stdout, trimmed. */
export function buildahOutput(args: readonly string[]): string {
  return execFileSync('buildah', [...GLOBAL, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** Whether local storage holds `image`. */
export function hasImage(image: string): boolean {
  return spawnSync('buildah', [...GLOBAL, 'inspect', '--type', 'image', image], { stdio: 'ignore' }).status === 0;
}
