/**
 * The kubelet (1.35, the last release for containerd 1.x and cgroup v1) on this machine: its
 * configuration, its certificates and how it is started. The fields that matter here, measured:
 * `failCgroupV1: false` and the cgroupfs driver (the machine's cgroups are hybrid v1 and are never
 * reorganised); logs, root and volume plugins under the node's folder; no evictions or image GC on a
 * shared disk; no certificate rotation; a non-loopback node address so kube-apiserver reaches it for
 * `pods/log`; webhook authentication and authorisation, so only kube-apiserver's client certificate and
 * authorised tokens are served.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnLogged } from '../controlplane.ts';
import type { ServingPki } from '../pki/serving-pki.ts';
import { CLUSTER_DOMAIN, DNS_SERVICE_IP, NODE_IP, NODE_NAME } from './addresses.ts';

/** What the kubelet is started with. */
export interface KubeletOptions {
  readonly bin: string;
  readonly dir: string;
  readonly kubeconfig: string;
  readonly containerdSocket: string;
  readonly pki: ServingPki;
  readonly port: number;
  readonly healthzPort: number;
  readonly detached: boolean;
}

/** The KubeletConfiguration, as JSON (a YAML subset). */
export function kubeletConfiguration(opts: KubeletOptions): Record<string, unknown> {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    containerRuntimeEndpoint: `unix://${opts.containerdSocket}`,
    address: NODE_IP,
    port: opts.port,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: opts.healthzPort,
    tlsCertFile: opts.pki.servingCert,
    tlsPrivateKeyFile: opts.pki.servingKey,
    rotateCertificates: false,
    serverTLSBootstrap: false,
    authentication: { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: opts.pki.caFile } },
    authorization: { mode: 'Webhook' },
    clusterDNS: [DNS_SERVICE_IP],
    clusterDomain: CLUSTER_DOMAIN,
    // The machine's own resolver is not the pods' business: nothing resolves outside the cluster.
    resolvConf: '',
    podLogsDir: join(opts.dir, 'pod-logs'),
    volumePluginDir: join(opts.dir, 'volume-plugins'),
    enforceNodeAllocatable: [],
    evictionHard: { 'memory.available': '1Mi', 'nodefs.available': '1%', 'nodefs.inodesFree': '1%', 'imagefs.available': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    failSwapOn: false,
    serializeImagePulls: false,
    maxPods: 50,
    // A Pod's status reaches the API server within a second of a change, for the tests' waits.
    nodeStatusReportFrequency: '10s',
  };
}

/** Writes the configuration and starts the kubelet. Returns its pid. */
export function startKubelet(opts: KubeletOptions, log: string): number {
  mkdirSync(opts.dir, { recursive: true });
  const config = join(opts.dir, 'kubelet-config.yaml');
  writeFileSync(config, JSON.stringify(kubeletConfiguration(opts), null, 2));
  return spawnLogged(
    opts.bin,
    [
      `--config=${config}`,
      `--kubeconfig=${opts.kubeconfig}`,
      `--root-dir=${join(opts.dir, 'root')}`,
      `--cert-dir=${join(opts.dir, 'pki')}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${NODE_IP}`,
      '--v=1',
    ],
    log,
    opts.detached,
  );
}

/** The kube-apiserver flags that make it verify the kubelet and authenticate to it. */
export function kubeletApiServerArgs(pki: ServingPki): string[] {
  return [
    `--kubelet-client-certificate=${pki.clientCert}`,
    `--kubelet-client-key=${pki.clientKey}`,
    `--kubelet-certificate-authority=${pki.caFile}`,
    '--kubelet-preferred-address-types=InternalIP',
  ];
}
