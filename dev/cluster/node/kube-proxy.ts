/**
 * kube-proxy in iptables mode: a Service's ClusterIP exists only in its NAT rules. It leaves the
 * machine's conntrack sysctls and `route_localnet` alone, and serves NodePorts only on the node's
 * address.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { spawnLogged } from '../controlplane.ts';
import { NODE_IP, NODE_NAME, POD_CIDR } from './addresses.ts';

/** The user kube-proxy authenticates as. */
export const KUBE_PROXY_USER = 'system:kube-proxy';

/** Starts kube-proxy; returns its pid. Its health answers on `127.0.0.1:<healthzPort>/livez`. */
export function startKubeProxy(opts: {
  bin: string;
  kubeconfig: string;
  healthzPort: number;
  metricsPort: number;
  log: string;
  detached: boolean;
}): number {
  return spawnLogged(
    opts.bin,
    [
      `--kubeconfig=${opts.kubeconfig}`,
      `--hostname-override=${NODE_NAME}`,
      '--proxy-mode=iptables',
      `--cluster-cidr=${POD_CIDR}`,
      `--healthz-bind-address=127.0.0.1:${opts.healthzPort}`,
      `--metrics-bind-address=127.0.0.1:${opts.metricsPort}`,
      `--nodeport-addresses=${NODE_IP}/32`,
      // Leave the machine's conntrack and route_localnet settings alone.
      '--conntrack-max-per-core=0',
      '--conntrack-tcp-timeout-established=0',
      '--conntrack-tcp-timeout-close-wait=0',
      '--iptables-localhost-nodeports=false',
    ],
    opts.log,
    opts.detached,
  );
}

/** Runs kube-proxy once in its cleanup mode, which removes the rules it made. */
export function cleanUpKubeProxy(bin: string): void {
  spawnSync(bin, ['--cleanup'], { stdio: 'ignore', timeout: 60_000 });
}
