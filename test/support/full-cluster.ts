// Everything an operator needs to try the Helm test by hand, and what the `helm test` suite runs on:
// a control plane with kube-controller-manager, the healthy sample install with the reference server
// on the gRPC port a discovered server has (9090), and the kubelet stand-in running the pods of the
// install namespace (and the engine pod bound to its node), with the server's Service name resolving to
// the reference server's address.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane } from './controlplane/controlplane.ts';
import { INSTALL_NAMESPACE, PROJECT_ROOT } from './fixtures.ts';
import { createKubeletPki, doctorImage, kubeletApiServerArgs, startKubeletStandin, type KubeletStandin } from './kubelet/standin.ts';
import { startSampleInstall, type SampleInstall } from './sample-install.ts';

/** The gRPC port the doctor dials when it finds the server through its Service. */
export const DISCOVERED_GRPC_PORT = 9090;
/** Any image whose repository ends like this runs the doctor bundle. */
export const DOCTOR_IMAGE_PATTERN = '*inferencecache-doctor';
/** The sample install's engine pods: a process that runs until it is stopped. */
const ENGINE_IMAGE = {
  entrypoint: [process.execPath, join(PROJECT_ROOT, 'test/support/kubelet/test-image.ts')],
  cmd: ['sleep'],
  user: 65532,
};

/** The node the stand-in registers. */
export const NODE_NAME = 'standin-node';

/** A running full test cluster. */
export interface FullCluster {
  readonly controlPlane: ControlPlane;
  readonly install: SampleInstall;
  readonly standin: KubeletStandin;
  /** An admin client for the control plane. */
  readonly kc: KubeConfig;
  stop(): Promise<void>;
}

export interface FullClusterOptions {
  /** Keep etcd, kube-apiserver and kube-controller-manager alive after this process exits. */
  readonly detached?: boolean;
  readonly log?: (line: string) => void;
}

/** Starts the control plane with kube-controller-manager, the sample install, and the kubelet stand-in. */
export async function startFullCluster(opts: FullClusterOptions = {}): Promise<FullCluster> {
  const log = opts.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'inferencecache-full-'));
  const pki = createKubeletPki(join(dir, 'kubelet-pki'), NODE_NAME);
  const controlPlane = await startControlPlane({
    startControllerManager: true,
    extraApiServerArgs: kubeletApiServerArgs(pki),
    detached: opts.detached === true,
    log,
  });
  const removeDir = (): Promise<void> => {
    rmSync(dir, { recursive: true, force: true });
    return Promise.resolve();
  };
  const stops: (() => Promise<void>)[] = [() => controlPlane.stop(), removeDir];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s();
  };
  try {
    const kc = new KubeConfig();
    kc.loadFromFile(controlPlane.kubeconfigPath);
    log('applying the sample install and starting the reference cache-plane server');
    const install = await startSampleInstall(kc, {
      server: controlPlane.server,
      caFile: controlPlane.caFile,
      dir: join(dir, 'install'),
      grpcPort: DISCOVERED_GRPC_PORT,
      workloadNamespace: 'demo-healthy',
      nodeName: NODE_NAME,
      log: (line) => log(`[reference-server] ${line}`),
    });
    stops.push(() => install.stop());
    log(`starting the kubelet stand-in (node ${NODE_NAME}, pods of namespace ${INSTALL_NAMESPACE})`);
    const standin = await startKubeletStandin({
      kubeconfig: controlPlane.kubeconfigPath,
      apiServer: controlPlane.server,
      caFile: controlPlane.caFile,
      nodeName: NODE_NAME,
      namespaces: [INSTALL_NAMESPACE],
      images: { [DOCTOR_IMAGE_PATTERN]: doctorImage(PROJECT_ROOT), 'engine:*': ENGINE_IMAGE },
      hosts: { [`inference-cache-server.${INSTALL_NAMESPACE}`]: install.server.host },
      podCIDR: '10.244.0.0/24',
      tls: pki,
      log: (line) => log(`[kubelet] ${line}`),
    });
    stops.push(() => standin.stop());
    return { controlPlane, install, standin, kc, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
