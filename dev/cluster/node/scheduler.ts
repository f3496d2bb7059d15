/**
 * kube-scheduler: binds the node's pods. It runs as its own user of the control plane (a token in its
 * kubeconfig), on loopback, without leader election.
 *
 * @module
 */
import { spawnLogged } from '../controlplane.ts';

/** The user kube-scheduler authenticates as. */
export const SCHEDULER_USER = 'system:kube-scheduler';

/** Starts kube-scheduler; returns its pid. */
export function startScheduler(opts: { bin: string; kubeconfig: string; port: number; log: string; detached: boolean }): number {
  return spawnLogged(
    opts.bin,
    [
      `--kubeconfig=${opts.kubeconfig}`,
      `--authentication-kubeconfig=${opts.kubeconfig}`,
      `--authorization-kubeconfig=${opts.kubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${opts.port}`,
      '--leader-elect=false',
    ],
    opts.log,
    opts.detached,
  );
}
