// Real files at in-pod paths for a process that is not in a container: the process runs in a private
// mount namespace in which each in-pod path (`/var/run/secrets/...`, `/etc/podinfo`,
// `/dev/termination-log`) is a bind mount of a host file or directory, the way a kubelet mounts a pod's
// volumes. A path whose parent does not exist on the host gets it from an overlay over the nearest
// existing ancestor, so the host's own file system is never written. Nothing outlives the process: the
// namespace and its mounts go when it exits. Needs root (unshare and mount), as CI has.
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** In-pod path → host path (a file or a directory) that the process sees there. */
export type PodMounts = Readonly<Record<string, string>>;

/** The nearest ancestor of `path` that exists on the host, with symlinks resolved (`/var/run` is `/run`). */
function existingAncestor(path: string): { base: string; rest: string } {
  let base = path;
  const rest: string[] = [];
  while (!existsSync(base)) {
    rest.unshift(basename(base));
    base = dirname(base);
  }
  return { base: realpathSync(base), rest: rest.join('/') };
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Why this process cannot build a pod file system, or '' when it can. */
export function podFsUnavailable(): string {
  if (process.getuid?.() !== 0) return 'in-pod paths need root (a private mount namespace with bind mounts)';
  if (!existsSync('/usr/bin/unshare') && !existsSync('/bin/unshare')) return 'unshare (util-linux) is not installed';
  return '';
}

/**
 * The argv that runs `command` with `mounts` in place, as `user` when given (the mounts need root, the
 * process then drops to that uid and gid with no supplementary groups, as a container's user). `workDir`
 * holds the overlays' upper and work directories (whatever the process writes outside its mounts
 * lands there).
 */
export function inPodCommand(
  mounts: PodMounts,
  workDir: string,
  command: readonly string[],
  user?: { readonly uid: number; readonly gid: number },
): string[] {
  const why = podFsUnavailable();
  if (why !== '') throw new Error(`cannot give the process its in-pod files: ${why}`);
  const targets = Object.entries(mounts)
    .map(([inPod, host]) => ({ host, directory: statSync(host).isDirectory(), ...existingAncestor(inPod) }))
    .sort((a, b) => `${a.base}/${a.rest}`.length - `${b.base}/${b.rest}`.length);
  const bases = [...new Set(targets.filter((t) => t.rest !== '').map((t) => t.base))].filter(
    (base, _, all) => !all.some((other) => other !== base && base.startsWith(`${other}/`)),
  );
  const lines = ['set -e'];
  for (const [i, base] of bases.entries()) {
    const upper = join(workDir, `overlay-${i}`, 'upper');
    const work = join(workDir, `overlay-${i}`, 'work');
    mkdirSync(upper, { recursive: true });
    mkdirSync(work, { recursive: true });
    lines.push(`mount -t overlay overlay -o ${quote(`lowerdir=${base},upperdir=${upper},workdir=${work}`)} ${quote(base)}`);
  }
  for (const t of targets) {
    const target = t.rest === '' ? t.base : `${t.base}/${t.rest}`;
    if (t.directory) lines.push(`mkdir -p ${quote(target)}`);
    else lines.push(`mkdir -p ${quote(dirname(target))}`, `[ -e ${quote(target)} ] || : > ${quote(target)}`);
    lines.push(`mount --bind ${quote(t.host)} ${quote(target)}`);
  }
  lines.push(user === undefined ? 'exec "$@"' : `exec setpriv --reuid=${user.uid} --regid=${user.gid} --clear-groups -- "$@"`);
  return ['unshare', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', lines.join('\n'), 'pod-fs', ...command];
}
