/**
 * kube-router with only its firewall controller: the NetworkPolicy enforcer. It learns pods, namespaces
 * and policies from the API server (read access bound to its own user) and programs iptables and
 * ipsets; it neither routes nor proxies Services nor sets up pod networks.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { spawnLogged } from '../controlplane.ts';
import type { KubeObject } from '../manifests.ts';
import { NODE_NAME, SERVICE_CIDR } from './addresses.ts';

/** The user kube-router authenticates as (a token of the control plane's `users`). */
export const KUBE_ROUTER_USER = 'icd:kube-router';

/** What kube-router's firewall controller reads, bound to its user. */
export function kubeRouterObjects(): KubeObject[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'icd:kube-router' },
      rules: [
        { apiGroups: [''], resources: ['namespaces', 'pods', 'services', 'nodes', 'endpoints'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['networking.k8s.io'], resources: ['networkpolicies'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'icd:kube-router' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'icd:kube-router' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KUBE_ROUTER_USER }],
    },
  ];
}

/** Starts kube-router's firewall controller; returns its pid. Its health answers on `:<healthPort>/healthz`. */
export function startKubeRouter(opts: { bin: string; kubeconfig: string; healthPort: number; log: string; detached: boolean }): number {
  return spawnLogged(
    opts.bin,
    [
      `--kubeconfig=${opts.kubeconfig}`,
      `--hostname-override=${NODE_NAME}`,
      '--run-firewall=true',
      '--run-router=false',
      '--run-service-proxy=false',
      '--enable-cni=false',
      '--enable-ipv6=false',
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      `--health-port=${opts.healthPort}`,
      '--metrics-port=0',
    ],
    opts.log,
    opts.detached,
  );
}

/** Runs kube-router once in its cleanup mode, which removes the chains and ipsets it made. */
export function cleanUpKubeRouter(bin: string): void {
  spawnSync(bin, ['--cleanup-config'], { stdio: 'ignore', timeout: 60_000 });
}
