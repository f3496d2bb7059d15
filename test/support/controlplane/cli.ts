// CLI for a long-lived local control plane (runs under Node 24 type stripping):
//   node test/support/controlplane/cli.ts up [--with-controller-manager]   -> last line: export KUBECONFIG=...
//   node test/support/controlplane/cli.ts down
//   node test/support/controlplane/cli.ts status
// State: ${XDG_RUNTIME_DIR:-os.tmpdir()}/inferencecache-doctor-cluster.json (override: CONTROLPLANE_STATE_FILE).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAlive, startControlPlane, stopControlPlane, type ControlPlaneState } from './controlplane.ts';

const stateFile =
  process.env['CONTROLPLANE_STATE_FILE'] ||
  path.join(process.env['XDG_RUNTIME_DIR'] || os.tmpdir(), 'inferencecache-doctor-cluster.json');

function readState(): ControlPlaneState | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile, 'utf8')) as ControlPlaneState;
  } catch {
    return undefined;
  }
}

function running(state: ControlPlaneState): boolean {
  return isAlive(state.pids.etcd) && isAlive(state.pids.apiserver);
}

async function up(args: string[]): Promise<void> {
  const existing = readState();
  if (existing && running(existing)) {
    console.error(`control plane already running (${existing.server}, dir ${existing.dir})`);
    console.log(`export KUBECONFIG=${existing.kubeconfigPath}`);
    return;
  }
  if (existing) await down();
  const cp = await startControlPlane({
    detached: true,
    startControllerManager: args.includes('--with-controller-manager') || process.env['CP_CONTROLLER_MANAGER'] === '1',
    log: (m) => console.error(`[controlplane] ${m}`),
  });
  const state: ControlPlaneState = {
    dir: cp.dir,
    kubeconfigPath: cp.kubeconfigPath,
    server: cp.server,
    caFile: cp.caFile,
    adminToken: cp.adminToken,
    auditLogPath: cp.auditLogPath,
    pids: cp.pids,
    logs: cp.logs,
    kubernetesVersion: cp.kubernetesVersion,
  };
  fs.writeFileSync(stateFile, JSON.stringify(state, null, 2), { mode: 0o600 });
  console.error(`[controlplane] up: ${cp.server} (kubernetes ${cp.kubernetesVersion}); dir ${cp.dir}; state ${stateFile}`);
  console.error(`[controlplane] audit log: ${cp.auditLogPath}`);
  console.log(`export KUBECONFIG=${cp.kubeconfigPath}`);
}

async function down(): Promise<void> {
  const state = readState();
  if (!state) {
    console.error(`no control plane state at ${stateFile}`);
    return;
  }
  await stopControlPlane(state);
  fs.rmSync(stateFile, { force: true });
  console.error(`[controlplane] stopped${process.env['KEEP_CP'] === '1' ? ` (kept ${state.dir})` : ''}`);
}

function status(): void {
  const state = readState();
  if (!state) {
    console.log('down');
    process.exitCode = 1;
    return;
  }
  console.log(`${running(state) ? 'running' : 'dead'} ${state.server} ${state.dir}`);
  if (!running(state)) process.exitCode = 1;
}

const [cmd, ...rest] = process.argv.slice(2);
try {
  if (cmd === 'up') await up(rest);
  else if (cmd === 'down') await down();
  else if (cmd === 'status') status();
  else {
    console.error('usage: cli.ts up [--with-controller-manager] | down | status');
    process.exitCode = 2;
  }
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
