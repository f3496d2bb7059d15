/**
 * What a killed run left in the machine, found by the names the project gives what it makes, without
 * the state file that would have recorded it (`npm run cluster:down -- --orphans`): a control plane's
 * and a node's processes (each names its folder on its command line), the containers' processes (in
 * the `kubepods` cgroups the node's kubelet made), mounts under those folders and containerd's and the
 * CNI plugins' fixed places, the pods' network namespaces (`cni-…`), the node's bridge, the iptables
 * chains and ipsets the node's components make, and the folders themselves.
 *
 * Scoped to one temporary folder (`os.tmpdir()` unless told): only folders under it, and processes
 * naming one, are taken, so a run's own folder can be cleaned without touching another run's. The
 * machine-wide names (bridge, chains, network namespaces, cgroups, containerd's places) are taken only
 * when no node process of the project is left running anywhere, so a node another run still uses is
 * never touched.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from '../../paths.ts';
import { killGroup } from '../controlplane.ts';
import { BRIDGE } from './addresses.ts';
import { cgroupProcs, kubepodsCgroups, removeCgroupTree } from './cgroups.ts';
import { OWN_CHAIN, chains, ipsets, links, netns, tables, tearDownHostNetwork } from './host-network.ts';
import { cleanUpKubeProxy } from './kube-proxy.ts';
import { cleanUpKubeRouter } from './kube-router.ts';
import { nodeBinaries } from './node.ts';

/** The prefixes of the folders a run makes in its temporary folder: a node's, a control plane's, `npm test`'s own, and each suite's (`icd-…`). */
const FOLDER = /^(icd-|inferencecache-(cp|test|demo)-)/;
/** Programs that only a node of the project runs on this machine (by name, wherever they run from). */
const NODE_PROGRAMS = ['kubelet', 'containerd', 'kube-proxy', 'kube-router'];
/** Fixed places the node's containerd, runc and CNI plugins use (node.ts, HOST_PATHS). */
const HOST_PATHS = ['/run/containerd', '/var/lib/cni', '/run/netns'];

interface Proc {
  readonly pid: number;
  readonly cmdline: string;
  readonly exe: string;
}

function processes(): Proc[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        let exe = '';
        try {
          exe = readlinkSync(`/proc/${p}/exe`);
        } catch {
          /* a kernel thread, or gone */
        }
        return cmdline === '' ? [] : [{ pid: Number(p), cmdline, exe }];
      } catch {
        return [];
      }
    });
}

/** The run folders under `scope` (`icd-node-…`, `inferencecache-cp-…`, …), and theirs one level down (`npm test`'s holds the others). */
function runFolders(scope: string): string[] {
  const top = existsSync(scope) ? readdirSync(scope).filter((f) => FOLDER.test(f)) : [];
  return top.flatMap((f) => {
    const dir = join(scope, f);
    let inner: string[] = [];
    try {
      inner = readdirSync(dir)
        .filter((g) => FOLDER.test(g))
        .map((g) => join(dir, g));
    } catch {
      /* not a folder */
    }
    return [dir, ...inner];
  });
}

/** Processes that name one of `folders` on their command line (never this process or its ancestors). */
function processesIn(folders: readonly string[]): Proc[] {
  const mine = new Set<number>();
  for (let pid = process.pid; pid > 1;) {
    mine.add(pid);
    try {
      pid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      break;
    }
  }
  return processes().filter(
    (p) => !mine.has(p.pid) && folders.some((f) => p.cmdline.includes(`${f}/`) || p.cmdline.includes(`${f} `) || p.cmdline.endsWith(f)),
  );
}

/** Node processes of the project anywhere on the machine (whatever folder they name). */
function nodeProcesses(): Proc[] {
  const bin = join(cacheRoot(), 'bin');
  return processes().filter((p) => {
    const name = p.exe.split('/').at(-1) ?? '';
    return NODE_PROGRAMS.includes(name) && (p.exe.startsWith(bin) || p.cmdline.includes('/icd-node-'));
  });
}

function mountPoints(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => (l.split(' ')[4] ?? '').replace(/\\040/g, ' '))
    .filter((m) => m !== '');
}

/** Mounts under the run folders, and (when `global`) under the node's fixed places; deepest first. */
function mountsOf(folders: readonly string[], global: boolean): string[] {
  const roots = [...folders, ...(global ? HOST_PATHS : [])];
  return mountPoints()
    .filter((m) => roots.some((r) => m === r || m.startsWith(`${r}/`)))
    .sort((a, b) => b.length - a.length);
}

/** The project's iptables chains (`ip/mangle/ICD-POD-GUARD`, …), in both families. */
function ownChains(): string[] {
  return chains().filter((c) => OWN_CHAIN.test(c.split('/').at(-1) ?? ''));
}

/** The ipsets kube-router makes (its names start `kube-router-` or `KUBE-`). */
function ownIpsets(): string[] {
  return ipsets().filter((s) => /^(kube-router-|KUBE-)/i.test(s));
}

/** What a killed run left under `scope` and (when no node of the project runs any more) in the machine; empty when nothing. */
export function findOrphans(scope: string): string[] {
  const folders = runFolders(scope);
  const global = nodeProcesses().every((p) => folders.some((f) => p.cmdline.includes(f)));
  return [
    ...processesIn(folders).map((p) => `process ${String(p.pid)} ${p.cmdline.slice(0, 160)}`),
    ...(global
      ? kubepodsCgroups().flatMap((c) => [`cgroup ${c}`, ...cgroupProcs(c).map((pid) => `container process ${String(pid)}`)])
      : []),
    ...mountsOf(folders, global).map((m) => `mount ${m}`),
    ...(global
      ? [
          ...netns()
            .filter((n) => n.startsWith('cni-'))
            .map((n) => `network namespace ${n}`),
          ...links()
            .filter((l) => l === BRIDGE)
            .map((l) => `interface ${l}`),
          ...ownChains().map((c) => `iptables chain ${c}`),
          ...ownIpsets().map((s) => `ipset ${s}`),
          ...HOST_PATHS.filter((p) => p !== '/run/netns' && existsSync(p)).map((p) => `folder ${p}`),
        ]
      : []),
    ...folders.filter((f) => existsSync(f)).map((f) => `folder ${f}`),
  ];
}

/**
 * Removes what {@link findOrphans} finds: processes first (SIGKILL: nothing is left to stop them in
 * order), the containers' cgroups, mounts, the node's network (kube-proxy's and kube-router's own
 * cleanup modes, then every chain, ipset, network namespace and the bridge), the fixed places and the
 * folders. Returns what is still there afterwards.
 */
export async function removeOrphans(scope: string, log: (line: string) => void = () => undefined): Promise<string[]> {
  const folders = runFolders(scope);
  for (const p of processesIn(folders)) {
    log(`killing ${String(p.pid)} ${p.cmdline.slice(0, 120)}`);
    killGroup(p.pid, 'SIGKILL');
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
  await new Promise((r) => setTimeout(r, 1_000));
  const global = nodeProcesses().length === 0;
  if (global) {
    for (const cg of kubepodsCgroups()) {
      for (const pid of cgroupProcs(cg)) killGroup(pid, 'SIGKILL');
    }
    if (kubepodsCgroups().length > 0) await new Promise((r) => setTimeout(r, 500));
  }
  for (const m of mountsOf(folders, global)) {
    log(`unmounting ${m}`);
    spawnSync('umount', ['-l', m]);
  }
  if (global) {
    for (const cg of kubepodsCgroups()) removeCgroupTree(cg);
    const bins = nodeBinaries();
    if (ownChains().length > 0 || ownIpsets().length > 0) {
      log('removing the node network: kube-proxy and kube-router cleanup, then every chain, ipset, pod network namespace and the bridge');
      if (existsSync(bins.kubeProxy)) cleanUpKubeProxy(bins.kubeProxy);
      if (existsSync(bins.kubeRouter)) cleanUpKubeRouter(bins.kubeRouter);
    }
    for (const set of ownIpsets()) spawnSync('ipset', ['destroy', set]);
    // What existed before is unknown: everything but the project's names counts as the machine's own.
    for (const problem of tearDownHostNetwork({
      sysctls: {},
      // Only the empty tables iptables makes (its families' four) may go; any other is the machine's.
      tables: tables().filter((t) => !/^ip6? (filter|nat|mangle|raw)$/.test(t)),
      chains: [],
      ipsets: ipsets(),
      netns: netns().filter((n) => !n.startsWith('cni-')),
      links: links().filter((l) => l !== BRIDGE),
    }))
      log(problem);
    for (const p of HOST_PATHS) {
      if (p === '/run/netns' && netns().length > 0) continue;
      rmSync(p, { recursive: true, force: true });
    }
  }
  for (const f of folders) rmSync(f, { recursive: true, force: true });
  return findOrphans(scope);
}
