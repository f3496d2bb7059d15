// A Docker-API engine for testcontainers on this machine: podman's API service, with storage and
// configuration of its own in a temporary folder. Podman's default ulimits (nofile, nproc above what
// this machine allows) make runc refuse every container ("error setting rlimit type 7: operation not
// permitted"), so the configuration sets none; cgroupfs and runc because crun refuses the hybrid
// cgroups here; host networking only. Stopping removes its containers, storage and the cgroups it made.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '../../../dev/poll.ts';

/** A running podman API service, for `DOCKER_HOST`. */
export interface PodmanService {
  readonly dockerHost: string;
  stop(): Promise<void>;
}

function ping(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/_ping', timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** The cgroup podman's cgroupfs manager makes in every hierarchy for its conmon and containers. */
const LIBPOD_CGROUP = 'libpod_parent';
const CGROUP_ROOT = '/sys/fs/cgroup';

/** The `libpod_parent` cgroups that exist now, one per hierarchy. */
export function libpodCgroups(): string[] {
  return readdirSync(CGROUP_ROOT)
    .map((hierarchy) => join(CGROUP_ROOT, hierarchy, LIBPOD_CGROUP))
    .filter((dir) => existsSync(dir));
}

/** Removes the cgroup `dir` and the ones below it, deepest first; a cgroup still in use stays. */
function removeCgroupTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeCgroupTree(join(dir, entry.name));
  try {
    rmdirSync(dir);
  } catch {
    // Busy: some process still runs in it; never forced.
  }
}

/** Starts the service and loads `archive` (an OCI archive) into its storage. */
export async function startPodmanService(archive: string): Promise<PodmanService> {
  const before = new Set(libpodCgroups());
  const dir = mkdtempSync(join(tmpdir(), 'icd-podman-'));
  writeFileSync(
    join(dir, 'containers.conf'),
    '[containers]\ndefault_ulimits = []\npids_limit = 0\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\nevents_logger = "file"\n',
  );
  writeFileSync(join(dir, 'storage.conf'), `[storage]\ndriver = "vfs"\nrunroot = "${dir}/run"\ngraphroot = "${dir}/root"\n`);
  const env = { ...process.env, CONTAINERS_CONF: join(dir, 'containers.conf'), CONTAINERS_STORAGE_CONF: join(dir, 'storage.conf') };
  const podman = (args: readonly string[]) =>
    execFileSync('podman', [...args], { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  podman(['load', '-i', archive]);
  const socket = join(dir, 'podman.sock');
  const service: ChildProcess = spawn('podman', ['system', 'service', '--time', '0', `unix://${socket}`], { env, stdio: 'ignore' });
  try {
    await pollUntil(
      'the podman API service',
      { timeoutMs: 10_000, intervalMs: 100 },
      async () => (existsSync(socket) && (await ping(socket))) || 'no answer on its socket',
    );
  } catch (err) {
    service.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    dockerHost: `unix://${socket}`,
    stop: async () => {
      try {
        podman(['rm', '--all', '--force']);
      } finally {
        const exited = new Promise((r) => service.once('exit', r));
        service.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        service.kill('SIGKILL');
        podman(['system', 'reset', '--force']);
        rmSync(dir, { recursive: true, force: true });
        // The cgroups podman made (the machine's own are never touched).
        for (const cgroup of libpodCgroups()) if (!before.has(cgroup)) removeCgroupTree(cgroup);
      }
    },
  };
}
