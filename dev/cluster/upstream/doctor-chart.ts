/**
 * The doctor's chart installed beside the real product, from the node's registry (an OCI chart, pulled
 * with the login the node's Helm configuration holds), its image pulled with the pull secret the product's install carries:
 * what `cluster:up -- --node --upstream` leaves ready for `helm test`.
 *
 * @module
 */
import { resolveBinaries } from '../controlplane.ts';
import { INSTALL_NAMESPACE } from '../manifests.ts';
import type { NodeCluster } from '../node/node.ts';
import { doctorChartArgs, doctorImageValues, nodeHelm } from '../node/registry.ts';

/** The release `cluster:up` installs. */
export const UPSTREAM_DOCTOR_RELEASE = 'doctor';

/** `helm install <release>` of the doctor's chart from the registry into the product's namespace, with `values`. */
export function installDoctorChart(cluster: NodeCluster, release: string, values: readonly string[] = []): void {
  const helm = resolveBinaries().helm4;
  const kubeconfig = cluster.state.controlPlane.kubeconfigPath;
  // The node's Helm configuration is logged in to the registry since the chart was pushed there.
  nodeHelm(
    helm,
    cluster.state.dir,
    [
      'install',
      release,
      ...doctorChartArgs(cluster.registry),
      '--namespace',
      INSTALL_NAMESPACE,
      ...[...doctorImageValues(cluster.registry), ...values].flatMap((v) => ['--set', v]),
    ],
    { kubeconfig },
  );
}
