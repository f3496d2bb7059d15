// `npm run image`: builds the Dockerfile into an OCI archive under dist/ without a Docker engine,
// with buildah (chroot isolation, its own storage under the cache folder, outside the repository).
//
//   npm run image                     # FROMs as the Dockerfile pins them (needs a registry)
//   IMAGE_BASES=local npm run image   # first builds two local stand-in bases (dev/image/bases.ts)
//
// The stand-ins exist only because this machine cannot pull from a registry; a real build uses the
// Dockerfile's own bases. Writes dist/inferencecache-doctor.oci.tar and prints the image reference.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildStandinBases } from '../dev/image/bases.ts';
import { PACKAGE } from '../dev/package.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';
import { IMAGE_ARCHIVE, IMAGE_NAME, buildah } from '../dev/image/buildah.ts';

const { version } = PACKAGE;
const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
})();

const baseArgs: string[] = [];
if (process.env['IMAGE_BASES'] === 'local') {
  const bases = buildStandinBases();
  baseArgs.push('--build-arg', `BUILD_IMAGE=${bases.build}`, '--build-arg', `RUNTIME_IMAGE=${bases.runtime}`);
} else if (process.env['IMAGE_BASES'] !== undefined && process.env['IMAGE_BASES'] !== '') {
  throw new Error(`IMAGE_BASES=${process.env['IMAGE_BASES']}: only "local" (or nothing) is known`);
}

const tag = `${IMAGE_NAME}:${version}`;
buildah([
  'bud',
  '--isolation',
  'chroot',
  // The stand-ins exist only in local storage; the real bases are pulled when missing.
  ...(baseArgs.length === 0 ? [] : ['--pull-never']),
  ...baseArgs,
  '--build-arg',
  `COMMIT=${commit}`,
  '--build-arg',
  `VERSION=${version}`,
  '--layers=false',
  '-f',
  join(PROJECT_ROOT, 'Dockerfile'),
  '-t',
  tag,
  PROJECT_ROOT,
]);
mkdirSync(join(PROJECT_ROOT, 'dist'), { recursive: true });
rmSync(IMAGE_ARCHIVE, { force: true });
buildah(['push', '--format', 'oci', tag, `oci-archive:${IMAGE_ARCHIVE}:${tag}`]);
console.log(`${tag} (commit ${commit}) -> ${IMAGE_ARCHIVE}`);
