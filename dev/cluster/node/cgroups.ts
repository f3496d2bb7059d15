/**
 * The cgroups the kubelet makes for pods (`kubepods` in each v1 hierarchy) and what teardown needs of
 * them. Only these are ever touched, and only with rmdir: the machine's own cgroups live beside them.
 *
 * @module
 */
import { existsSync, readFileSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

/** The cgroup folders the kubelet makes (`kubepods` in each v1 hierarchy). */
export function kubepodsCgroups(): string[] {
  const root = '/sys/fs/cgroup';
  return readdirSync(root)
    .map((h) => join(root, h, 'kubepods'))
    .filter((p) => existsSync(p));
}

/** Pids of every process in a cgroup tree. */
export function cgroupProcs(dir: string): number[] {
  const here = existsSync(join(dir, 'cgroup.procs'))
    ? readFileSync(join(dir, 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map(Number)
    : [];
  return [
    ...here,
    ...readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => cgroupProcs(join(dir, e.name))),
  ];
}

/** Removes a cgroup tree depth first (rmdir only: a cgroup with processes stays, and is reported). */
export function removeCgroupTree(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeCgroupTree(join(dir, e.name));
  try {
    rmdirSync(dir);
  } catch {
    /* reported by nodeLeftovers */
  }
}
