// Reading the OCI archive `npm run image` writes, and running its root filesystem under runc: the
// image tests look at the image as a registry and a container runtime would, not at the Dockerfile.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What an OCI descriptor says about a blob. */
interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
}

/** The parts of an image config the tests check. */
export interface ImageConfig {
  readonly config: {
    readonly User?: string;
    readonly Entrypoint?: string[];
    readonly Cmd?: string[];
    readonly Labels?: Record<string, string>;
    readonly Env?: string[];
  };
}

/** An unpacked OCI archive: its config and its layers, bottom first. */
export interface OciImage {
  readonly dir: string;
  readonly config: ImageConfig;
  readonly layers: readonly { readonly file: string; readonly gzip: boolean }[];
}

const blob = (dir: string, d: Descriptor) => join(dir, 'blobs', ...d.digest.split(':'));

/** Unpacks `archive` (an oci-archive tarball) into a new temporary folder. */
export function openImage(archive: string): OciImage {
  const dir = mkdtempSync(join(tmpdir(), 'icd-oci-'));
  execFileSync('tar', ['-xf', archive, '-C', dir]);
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  const [first] = index.manifests;
  if (first === undefined) throw new Error(`${archive} holds no manifest`);
  const manifest = JSON.parse(readFileSync(blob(dir, first), 'utf8')) as { config: Descriptor; layers: Descriptor[] };
  return {
    dir,
    config: JSON.parse(readFileSync(blob(dir, manifest.config), 'utf8')) as ImageConfig,
    layers: manifest.layers.map((l) => ({ file: blob(dir, l), gzip: l.mediaType.endsWith('gzip') })),
  };
}

/** One entry of a layer: its path, mode string (`-r--r--r--`), owner and group ids. */
export interface LayerEntry {
  readonly path: string;
  readonly mode: string;
  readonly uid: number;
  readonly gid: number;
}

/** The entries of one layer, as `tar --numeric-owner -tv` lists them. */
export function layerEntries(layer: OciImage['layers'][number]): LayerEntry[] {
  const out = execFileSync('tar', [layer.gzip ? '-tzvf' : '-tvf', layer.file, '--numeric-owner'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [mode = '', owner = '', , , , ...rest] = line.split(/\s+/);
      const [uid = '', gid = ''] = owner.split('/');
      return {
        path: rest
          .join(' ')
          .replace(/^\.\//, '')
          .replace(/ -> .*$/, ''),
        mode,
        uid: Number(uid),
        gid: Number(gid),
      };
    });
}

/** The image's root filesystem, every layer unpacked in order (whiteouts are not used by this image). */
export function unpackRootfs(image: OciImage): string {
  const rootfs = join(image.dir, 'rootfs');
  mkdirSync(rootfs);
  for (const layer of image.layers) execFileSync('tar', [layer.gzip ? '-xzf' : '-xf', layer.file, '-C', rootfs, '--numeric-owner']);
  return rootfs;
}

/** What a container run produced. */
export interface ContainerRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the image's entrypoint with `args` under runc, as the image's user, with a read-only root
 * filesystem and the host's network (the test control plane listens on loopback); `mounts` are
 * bind-mounted read-only. The container is deleted afterwards, whatever happened.
 */
export function runInRunc(
  image: OciImage,
  rootfs: string,
  args: readonly string[],
  mounts: Readonly<Record<string, string>> = {},
): ContainerRun {
  const bundle = mkdtempSync(join(tmpdir(), 'icd-runc-'));
  const id = `icd-test-${process.pid}-${Date.now()}`;
  try {
    execFileSync('runc', ['spec', '--bundle', bundle]);
    const spec = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as {
      process: { terminal: boolean; user: { uid: number; gid: number }; args: string[]; env: string[]; cwd: string };
      root: { path: string; readonly: boolean };
      mounts: { destination: string; type: string; source: string; options: string[] }[];
      linux: { namespaces: { type: string }[] };
    };
    const [uid = '', gid = ''] = (image.config.config.User ?? '').split(':');
    spec.process.terminal = false;
    spec.process.user = { uid: Number(uid), gid: Number(gid) };
    spec.process.args = [...(image.config.config.Entrypoint ?? []), ...args];
    spec.process.env = image.config.config.Env ?? [];
    spec.process.cwd = '/';
    spec.root = { path: rootfs, readonly: true };
    spec.linux.namespaces = spec.linux.namespaces.filter((ns) => ns.type !== 'network');
    for (const [destination, source] of Object.entries(mounts))
      spec.mounts.push({ destination, type: 'bind', source, options: ['rbind', 'ro'] });
    writeFileSync(join(bundle, 'config.json'), JSON.stringify(spec));
    const run = spawnSync('runc', ['run', '--bundle', bundle, id], { encoding: 'utf8', timeout: 120_000 });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  } finally {
    spawnSync('runc', ['delete', '--force', id], { stdio: 'ignore' });
    rmSync(bundle, { recursive: true, force: true });
  }
}
