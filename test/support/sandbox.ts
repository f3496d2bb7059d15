/**
 * A read-only folder holding a copy of the bundle and nothing else, and running it there as the image
 * does: uid 65532, no HOME, no node_modules anywhere near.
 *
 * @module
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BUNDLE, BUNDLE_DIR, bundleFiles, requireBundle } from '../../dev/bundle.ts';
import { collectProcess } from '../../dev/process.ts';
import { inPodCommand, type PodMounts } from './pod-fs.ts';

/** The user of the distroless `nonroot` image, which the chart's pod also runs as. */
export const NONROOT_UID = 65532;

/** A folder that holds a copy of the bundle and nothing else (plus any files a test adds), read-only. */
export interface BundleSandbox {
  /** The folder; mode 0555, the working directory of every run. */
  readonly dir: string;
  /** The copy of the bundle's entry inside it (mode 0444): the program a run starts. */
  readonly bundle: string;
  /** Every file of the bundle's copy, the entry and its chunks (mode 0444, in folders of mode 0555). */
  readonly bundleFiles: readonly string[];
  /** Absolute paths of the extra files, by the name they were given. */
  readonly files: Readonly<Record<string, string>>;
  /** The Node binary runs start: this process's own, or as root a link to it that uid 65532 can reach ({@link nonrootNode}). */
  readonly node: string;
}

/**
 * This process's Node binary at a path uid 65532 can reach, in a folder of its own beside `dir`. The
 * project's Node 24 lies in the clone's node_modules, and a clone under a private folder (mode 0700,
 * as `mktemp -d` or /root makes it) is closed to every other user: spawned as 65532 from there, Node
 * fails with EACCES. So the binary is linked (or, across file systems, copied) into a folder open to
 * anyone and writable by root only.
 */
function nonrootNode(dir: string): string {
  const folder = `${dir}.node`;
  fs.mkdirSync(folder, { mode: 0o755 });
  const file = path.join(folder, 'node');
  try {
    fs.linkSync(process.execPath, file);
  } catch {
    fs.copyFileSync(process.execPath, file);
  }
  fs.chmodSync(file, 0o755);
  return file;
}

/**
 * Copies the bundle (`npm run build`'s entry and chunks, laid out as in dist/) and `files` (relative
 * path → content) into a fresh folder under the temp dir, every file readable by anyone and every
 * folder open to anyone, none writable but by root: the way the image holds the bundle, with no
 * node_modules anywhere near.
 */
export function bundleSandbox(files: Readonly<Record<string, string>> = {}): BundleSandbox {
  requireBundle();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icd-bundle-'));
  const put = (name: string, write: (file: string) => void): string => {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
    write(file);
    fs.chmodSync(file, 0o444);
    return file;
  };
  const copied = bundleFiles().map((name) => put(name, (file) => fs.copyFileSync(path.join(BUNDLE_DIR, name), file)));
  const written: Record<string, string> = {};
  for (const [name, content] of Object.entries(files)) written[name] = put(name, (file) => fs.writeFileSync(file, content));
  for (const folder of folders(dir)) fs.chmodSync(folder, 0o555);
  const node = process.getuid?.() === 0 ? nonrootNode(dir) : process.execPath;
  return { dir, bundle: path.join(dir, path.relative(BUNDLE_DIR, BUNDLE)), bundleFiles: copied, files: written, node };
}

/** `dir` and every folder under it. */
function folders(dir: string): string[] {
  const below = fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(e.parentPath, e.name));
  return [dir, ...below];
}

/** Removes a sandbox (its folders are read-only, so they are made writable first). */
export function removeSandbox(sandbox: BundleSandbox): void {
  for (const folder of folders(sandbox.dir)) fs.chmodSync(folder, 0o755);
  fs.rmSync(sandbox.dir, { recursive: true, force: true });
  if (sandbox.node !== process.execPath) fs.rmSync(path.dirname(sandbox.node), { recursive: true, force: true });
}

/** What one sandboxed run produced. */
export interface SandboxRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node [nodeArgs] <program> [args]` with this process's Node (24 under npm), in the sandbox as
 * its working directory, with an environment of PATH plus `env` only (no HOME). As root it drops to
 * uid/gid 65532, as the image does, starting Node from where that user can reach it; as any other user
 * it stays that (non-root) user. `program` is the
 * script (default: the sandbox's bundle; '' for none, when `nodeArgs` hold `-e` or `-p`). With `pod`,
 * the process finds those host files at their in-pod paths (support/pod-fs.ts; needs root).
 */
export async function runSandboxed(
  sandbox: BundleSandbox,
  args: readonly string[],
  opts: {
    nodeArgs?: readonly string[];
    program?: string;
    env?: Readonly<Record<string, string>>;
    timeoutMs?: number;
    pod?: PodMounts;
  } = {},
): Promise<SandboxRun> {
  const root = process.getuid?.() === 0;
  const program = opts.program === undefined ? [sandbox.bundle] : opts.program === '' ? [] : [opts.program];
  const command = [sandbox.node, ...(opts.nodeArgs ?? []), ...program, ...args];
  const common = { cwd: sandbox.dir, env: { PATH: process.env['PATH'] ?? '', ...opts.env }, timeoutMs: opts.timeoutMs };
  if (opts.pod === undefined) {
    const [cmd, ...rest] = command;
    return collectProcess(cmd ?? '', rest, { ...common, ...(root ? { uid: NONROOT_UID, gid: NONROOT_UID } : {}) });
  }
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'icd-podfs-'));
  try {
    const [cmd, ...rest] = inPodCommand(opts.pod, workDir, command, { uid: NONROOT_UID, gid: NONROOT_UID });
    return await collectProcess(cmd ?? '', rest, common);
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}
