/**
 * The images the real node runs. No registry is reachable, so each is built here with buildah (the
 * project's storage, as `npm run image` uses) and written as an OCI archive that containerd imports:
 *
 * - pause: the sandbox image (hack/ builds its static program);
 * - engine: the sample install's engine pods (`engine:test`, which the CRI plugin reads as
 *   `docker.io/library/engine:test`), the same program: a process that runs until it is stopped;
 * - coredns: the cluster DNS (hack/ builds it with only the plugins it needs);
 * - reference-server: the reference cache-plane server, bundled with esbuild, on the doctor image (the
 *   same Node runtime, user 65532);
 * The doctor's own image (`dist/inferencecache-doctor.oci.tar` from `npm run image`) is not imported: it
 * is pushed to the node's registry and pulled from there, with a pull secret (node/registry.ts).
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { IMAGE_ARCHIVE, buildah, buildahOutput } from '../image/buildah.ts';
import { PROJECT_ROOT } from '../paths.ts';

/** The archives to import and the references pods use. */
export interface NodeImages {
  readonly pause: string;
  readonly archives: readonly string[];
}

/** Image references the node's pods use. */
export const IMAGES = {
  pause: 'localhost/inferencecache-test/pause:v1',
  engine: 'docker.io/library/engine:test',
  coredns: 'localhost/inferencecache-test/coredns:test',
  referenceServer: 'localhost/inferencecache-test/reference-server:test',
} as const;

/** The reference server's bundle inside its image. */
export const REFERENCE_SERVER_ENTRY = '/reference-server.mjs';

/** Whether `archive` is missing or older than any of `inputs`. */
export function stale(archive: string, inputs: readonly string[]): boolean {
  if (!existsSync(archive)) return true;
  const built = statSync(archive).mtimeMs;
  return inputs.some((f) => statSync(f).mtimeMs > built);
}

/**
 * One file on a base image, as `ref`, written to `archive`: `base` is `scratch` or a buildah source,
 * `config` the `buildah config` flags. A failed step removes the working container.
 */
function imageWithFile(
  ref: string,
  base: string,
  file: string,
  target: string,
  mode: string,
  config: readonly string[],
  archive: string,
): void {
  // Local storage only: the bases are this project's archives (or nothing).
  const ctr = buildahOutput(['from', ...(base === 'scratch' ? [] : ['--pull-never']), base]);
  try {
    buildah(['copy', '--chmod', mode, ctr, file, target]);
    buildah(['config', ...config, '--cmd', '', ctr]);
    buildah(['commit', '--quiet', '--rm', ctr, ref]);
  } catch (err) {
    buildah(['rm', ctr]);
    throw err;
  }
  rmSync(archive, { force: true });
  buildah(['push', '--quiet', '--format', 'oci', ref, `oci-archive:${archive}:${ref}`]);
}

/** A one-file image from scratch: the program as entrypoint, run as `user`. */
export function scratchImage(ref: string, program: string, target: string, user: string, archive: string): void {
  imageWithFile(ref, 'scratch', program, target, '0555', ['--entrypoint', JSON.stringify([target]), '--user', user], archive);
}

/** The reference server bundled into one ESM file for the image's Node. */
async function bundleReferenceServer(outfile: string): Promise<void> {
  await build({
    entryPoints: [join(PROJECT_ROOT, 'dev/cluster/reference-server/main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    logLevel: 'warning',
    // CommonJS dependencies call require(); an ESM bundle has none of its own.
    banner: { js: "import { createRequire as __icdRequire } from 'node:module'; const require = __icdRequire(import.meta.url);" },
  });
}

/** The reference server's bundle on the doctor image: its Node, its user; the entrypoint runs the server. */
function referenceServerImage(bundle: string, archive: string): void {
  const entrypoint = JSON.stringify(['/nodejs/bin/node', REFERENCE_SERVER_ENTRY]);
  imageWithFile(
    IMAGES.referenceServer,
    `oci-archive:${IMAGE_ARCHIVE}`,
    bundle,
    REFERENCE_SERVER_ENTRY,
    '0444',
    ['--entrypoint', entrypoint],
    archive,
  );
}

/**
 * Builds what is stale into `cacheDir` (kept across runs) and returns the archives to import.
 * `bins` are hack/'s pause and coredns programs; the doctor image must exist (`npm run image`).
 */
export async function buildNodeImages(cacheDir: string, bins: { pause: string; coredns: string }): Promise<NodeImages> {
  if (!existsSync(IMAGE_ARCHIVE)) throw new Error(`${IMAGE_ARCHIVE} is missing: run IMAGE_BASES=local npm run image first`);
  mkdirSync(cacheDir, { recursive: true });
  const archive = (name: string) => join(cacheDir, `${name}.oci.tar`);
  if (stale(archive('pause'), [bins.pause])) scratchImage(IMAGES.pause, bins.pause, '/pause', '65535:65535', archive('pause'));
  if (stale(archive('engine'), [bins.pause])) scratchImage(IMAGES.engine, bins.pause, '/engine', '65532:65532', archive('engine'));
  if (stale(archive('coredns'), [bins.coredns])) scratchImage(IMAGES.coredns, bins.coredns, '/coredns', '65532:65532', archive('coredns'));
  // The bundle is rebuilt every time (under a second) and the image only when the bundle changed.
  const bundle = join(cacheDir, 'reference-server.mjs');
  const fresh = `${bundle}.new`;
  await bundleReferenceServer(fresh);
  const changed = !existsSync(bundle) || !readFileSync(bundle).equals(readFileSync(fresh));
  // Kept as the last built only once its image is written, so a failed build is retried next time.
  if (changed || stale(archive('reference-server'), [IMAGE_ARCHIVE])) referenceServerImage(fresh, archive('reference-server'));
  renameSync(fresh, bundle);
  return {
    pause: IMAGES.pause,
    archives: [archive('pause'), archive('engine'), archive('coredns'), archive('reference-server')],
  };
}
