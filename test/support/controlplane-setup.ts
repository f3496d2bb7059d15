// vitest globalSetup: starts one local control plane for the whole run and provides its coordinates.
// Suites: `const kubeconfig = inject('kubeconfig'); describe.skipIf(!kubeconfig)(...)`;
// when skipped, inject('controlPlaneSkipReason') says why. The project `integration` runs the current
// kube-apiserver (KUBERNETES_VERSION); `integration-oldest` runs the control-plane suites again on the
// oldest minor the chart admits (controlplane-oldest-setup.ts).
// Env: CI=true makes missing binaries an error; CP_CONTROLLER_MANAGER=1 also starts kube-controller-manager;
// KEEP_CP=1 keeps the temp dir (logs, audit log) after the run.
import type { TestProject } from 'vitest/node';
import {
  missingBinaries,
  resolveBinaries,
  startControlPlane,
  type ControlPlane,
  type KubernetesLine,
} from '../../dev/cluster/controlplane.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfig: string;
    server: string;
    caFile: string;
    auditLogPath: string;
    kubernetesVersion: string;
    controlPlaneSkipReason: string;
  }
}

/** The globalSetup of a project whose control plane runs the kube-apiserver of `line`. */
export function controlPlaneSetup(line: KubernetesLine): (project: TestProject) => Promise<() => Promise<void>> {
  let cp: ControlPlane | undefined;
  const teardown = async (): Promise<void> => {
    const current = cp;
    cp = undefined;
    await current?.stop();
  };
  return async (project) => {
    const withKcm = process.env['CP_CONTROLLER_MANAGER'] === '1' && line === 'current';
    const bins = resolveBinaries(process.env, line);
    const missing = missingBinaries(bins, withKcm);
    if (missing.length > 0) {
      const msg = `control-plane binaries not built (missing: ${missing.join(', ')}); run hack/build-tools.sh`;
      if (process.env['CI'] === 'true') throw new Error(msg);
      console.warn(`[controlplane] ${msg} — integration suites will be skipped`);
      project.provide('kubeconfig', '');
      project.provide('server', '');
      project.provide('caFile', '');
      project.provide('auditLogPath', '');
      project.provide('kubernetesVersion', '');
      project.provide('controlPlaneSkipReason', msg);
      return teardown;
    }
    cp = await startControlPlane({ binaries: bins, startControllerManager: withKcm });
    project.provide('kubeconfig', cp.kubeconfigPath);
    project.provide('server', cp.server);
    project.provide('caFile', cp.caFile);
    project.provide('auditLogPath', cp.auditLogPath);
    project.provide('kubernetesVersion', cp.kubernetesVersion);
    project.provide('controlPlaneSkipReason', '');
    return teardown;
  };
}

export default controlPlaneSetup('current');
