/**
 * containerd (Debian's 1.6, with runc) as the node's container runtime: its own configuration, root,
 * state and sockets under the node's folder, the CRI plugin with a pause image built here, the CNI
 * bridge network and the node's registry (its hosts folder, which trusts the registry's CA), and `ctr`
 * for importing the node's own images and for removing what the kubelet left behind at teardown.
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnLogged, waitFor } from '../controlplane.ts';
import { BRIDGE, POD_CIDR } from './addresses.ts';

/** The containerd namespace the CRI plugin keeps Kubernetes' images and containers in. */
const CRI_NAMESPACE = 'k8s.io';
/** Debian's containernetworking-plugins. */
const CNI_BIN_DIR = '/usr/lib/cni';

/** Where one containerd keeps everything. */
export interface ContainerdPaths {
  readonly dir: string;
  readonly socket: string;
  readonly config: string;
  readonly log: string;
}

export function containerdPaths(nodeDir: string): ContainerdPaths {
  const dir = join(nodeDir, 'containerd');
  return { dir, socket: join(dir, 'containerd.sock'), config: join(dir, 'config.toml'), log: join(nodeDir, 'containerd.log') };
}

/**
 * The configuration. `restrict_oom_score_adj`: this machine forbids lowering `oom_score_adj`, and without
 * it every sandbox fails in runc. `SystemdCgroup = false`: the kubelet's cgroupfs driver. The CNI
 * network is the bridge plugin with host-local addresses, no masquerade (nothing may leave the machine)
 * and hairpin mode (a pod may reach itself through its Service).
 */
function writeConfig(paths: ContainerdPaths, pauseImage: string, registryHostsDir: string): void {
  const cniConf = join(paths.dir, 'cni', 'net.d');
  mkdirSync(cniConf, { recursive: true });
  writeFileSync(
    join(cniConf, '10-icd-pods.conflist'),
    JSON.stringify(
      {
        cniVersion: '1.0.0',
        name: 'icd-pods',
        plugins: [
          {
            type: 'bridge',
            bridge: BRIDGE,
            isGateway: true,
            ipMasq: false,
            hairpinMode: true,
            ipam: {
              type: 'host-local',
              ranges: [[{ subnet: POD_CIDR }]],
              routes: [{ dst: '0.0.0.0/0' }],
              dataDir: join(paths.dir, 'cni', 'ipam'),
            },
          },
        ],
      },
      null,
      2,
    ),
  );
  const q = (s: string) => JSON.stringify(s);
  writeFileSync(
    paths.config,
    `version = 2
root = ${q(join(paths.dir, 'root'))}
state = ${q(join(paths.dir, 'state'))}

[grpc]
  address = ${q(paths.socket)}

[ttrpc]
  address = ${q(`${paths.socket}.ttrpc`)}

[plugins."io.containerd.internal.v1.opt"]
  path = ${q(join(paths.dir, 'opt'))}

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = ${q(pauseImage)}
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = ${q(CNI_BIN_DIR)}
    conf_dir = ${q(cniConf)}
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = ${q(registryHostsDir)}
`,
  );
}

/** Runs `ctr` against this containerd, in the CRI namespace. */
export function ctr(paths: ContainerdPaths, args: readonly string[]): string {
  return execFileSync('ctr', ['--address', paths.socket, '--namespace', CRI_NAMESPACE, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts containerd (`onStart` gets its pid at once) and waits until its API answers. Returns its pid. */
export async function startContainerd(
  paths: ContainerdPaths,
  pauseImage: string,
  registryHostsDir: string,
  detached: boolean,
  onStart: (pid: number) => void = () => undefined,
): Promise<number> {
  mkdirSync(paths.dir, { recursive: true });
  writeConfig(paths, pauseImage, registryHostsDir);
  const pid = spawnLogged('containerd', ['--config', paths.config, '--log-level', 'warn'], paths.log, detached);
  onStart(pid);
  await waitFor('containerd', 30_000, pid, paths.log, () =>
    Promise.resolve(existsSync(paths.socket) && spawnSync('ctr', ['--address', paths.socket, 'version'], { stdio: 'ignore' }).status === 0),
  );
  return pid;
}

/** Imports an OCI archive (the image's reference is in its index). */
export function importImage(paths: ContainerdPaths, archive: string): void {
  ctr(paths, ['images', 'import', archive]);
}

/**
 * Kills and removes every container containerd still has (the kubelet stops sandboxes but removes
 * them only in its garbage collection), so no shim, mount or cgroup of theirs is left.
 */
export function removeAllContainers(paths: ContainerdPaths): void {
  const ids = (
    spawnSync('ctr', ['--address', paths.socket, '--namespace', CRI_NAMESPACE, 'containers', 'ls', '-q'], { encoding: 'utf8' }).stdout ?? ''
  )
    .split('\n')
    .filter((l) => l !== '');
  for (const id of ids) {
    spawnSync('ctr', ['--address', paths.socket, '--namespace', CRI_NAMESPACE, 'tasks', 'kill', '--signal', 'SIGKILL', id], {
      stdio: 'ignore',
    });
    spawnSync('ctr', ['--address', paths.socket, '--namespace', CRI_NAMESPACE, 'tasks', 'delete', '--force', id], { stdio: 'ignore' });
    spawnSync('ctr', ['--address', paths.socket, '--namespace', CRI_NAMESPACE, 'containers', 'delete', id], { stdio: 'ignore' });
  }
}
