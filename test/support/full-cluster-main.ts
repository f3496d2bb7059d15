// The process behind `npm run cluster:up -- --full`: starts the full test cluster (see full-cluster.ts),
// writes its state to the file named by the first argument once everything is up, and keeps it running
// until SIGTERM or SIGINT. Test support only; never shipped.
import { writeFileSync } from 'node:fs';
import { describeError } from '../../src/text/errors.ts';
import { controlPlaneState, type ControlPlaneState } from './controlplane/controlplane.ts';
import { startFullCluster } from './full-cluster.ts';

/** What `cluster:up --full` records besides the control plane: this process, and where things are. */
export interface FullClusterState extends ControlPlaneState {
  readonly fullPid: number;
  readonly serverAddress: string;
  readonly controllerTokenFile: string;
}

const readyFile = process.argv[2];
if (readyFile === undefined) {
  process.stderr.write('usage: node test/support/full-cluster-main.ts READY_FILE\n');
  process.exit(2);
}

const cluster = await startFullCluster({ log: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`) });
const state: FullClusterState = {
  ...controlPlaneState(cluster.controlPlane),
  fullPid: process.pid,
  serverAddress: cluster.install.server.host,
  controllerTokenFile: cluster.install.tokenFile,
};
writeFileSync(readyFile, JSON.stringify(state, null, 2), { mode: 0o600 });

let stopping = false;
const shutdown = (): void => {
  if (stopping) return;
  stopping = true;
  cluster.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`stopping failed: ${describeError(err)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
