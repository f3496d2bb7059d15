// The doctor's image for the tests that run it: built with `IMAGE_BASES=local npm run image` when the
// archive is missing or stale, so a suite always runs the image of the bundle and commit under test.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { IMAGE_ARCHIVE } from '../../../dev/image/buildah.ts';
import { BUNDLE } from '../../../dev/bundle.ts';
import { PROJECT_ROOT } from '../../../dev/paths.ts';

/** The archive is stale when it is older than the bundle it should hold or the commit it is labelled with. */
export function archiveIsStale(): boolean {
  if (!existsSync(IMAGE_ARCHIVE)) return true;
  const built = statSync(IMAGE_ARCHIVE).mtimeMs;
  const committed = Number(execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: PROJECT_ROOT, encoding: 'utf8' })) * 1000;
  return built < statSync(BUNDLE).mtimeMs || built < committed;
}

/** How long a lock may be held before it counts as left by a killed run: longer than any image build. */
const LOCK_STALE_MS = 20 * 60_000;

/**
 * Builds the image (stand-in bases, as this machine cannot pull) unless the archive is current. Two
 * lanes of `npm test` may ask at once (the node's suites and the image's own): one builds, under a
 * lock beside the archive, and the other waits for it and finds the archive current.
 */
export function ensureImage(): void {
  if (!archiveIsStale()) return;
  const lock = `${IMAGE_ARCHIVE}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
      } catch {
        /* released meanwhile */
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
    }
  }
  try {
    if (!archiveIsStale()) return;
    execFileSync('npm', ['run', '-s', 'image'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, IMAGE_BASES: 'local' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } finally {
    rmSync(lock, { force: true });
  }
}
