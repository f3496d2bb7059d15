// The doctor's image for the tests that run it: built with `IMAGE_BASES=local npm run image` when the
// archive is missing or stale, so a suite always runs the image of the bundle and commit under test.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
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

/** Builds the image (stand-in bases, as this machine cannot pull) unless the archive is current. */
export function ensureImage(): void {
  if (!archiveIsStale()) return;
  execFileSync('npm', ['run', '-s', 'image'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, IMAGE_BASES: 'local' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
