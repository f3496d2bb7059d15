/**
 * cert-manager v1.21.1 on the node, installed the way its documentation installs it: its Helm chart
 * (from its module in the Go module cache) with `crds.enabled`, the three components' images from the
 * node's registry (`imageRegistry`, `imageNamespace` and each component's tag; built here from its
 * sources) and the registry's pull secret (`global.imagePullSecrets`). The start-up API check is a Job
 * of a fourth image that is not built here; `helm install --wait` waits for the three Deployments instead.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { createNamespace, applyObjects } from '../manifests.ts';
import { nodeHelm, pullSecret, PULL_SECRET_NAME, type NodeRegistry } from '../node/registry.ts';
import { CERT_MANAGER_IMAGE_NAMESPACE } from './images.ts';
import { certManagerChartDir, upstreamVersions } from './programs.ts';

export const CERT_MANAGER_NAMESPACE = 'cert-manager';
export const CERT_MANAGER_RELEASE = 'cert-manager';

/** The chart's values that point it at the node's registry: what a user with a private mirror sets. */
export function certManagerValues(registry: Pick<NodeRegistry, 'host'>): string[] {
  const tag = upstreamVersions().certManager;
  return [
    'crds.enabled=true',
    `imageRegistry=${registry.host}`,
    `imageNamespace=${CERT_MANAGER_IMAGE_NAMESPACE}`,
    `image.tag=${tag}`,
    `webhook.image.tag=${tag}`,
    `cainjector.image.tag=${tag}`,
    'startupapicheck.enabled=false',
    `global.imagePullSecrets[0].name=${PULL_SECRET_NAME}`,
  ];
}

/** Installs cert-manager and waits until its three Deployments are Available (its webhook answering). */
export async function installCertManager(
  kc: KubeConfig,
  /** `dir`: the node's folder, whose Helm configuration runs the install. */
  opts: { helm: string; dir: string; kubeconfig: string; registry: NodeRegistry },
): Promise<void> {
  await createNamespace(kc, CERT_MANAGER_NAMESPACE);
  await applyObjects(kc, [pullSecret(opts.registry, CERT_MANAGER_NAMESPACE)]);
  nodeHelm(
    opts.helm,
    opts.dir,
    [
      'install',
      CERT_MANAGER_RELEASE,
      certManagerChartDir(),
      '--namespace',
      CERT_MANAGER_NAMESPACE,
      ...certManagerValues(opts.registry).flatMap((v) => ['--set', v]),
      '--wait',
      '--timeout',
      '5m',
    ],
    { kubeconfig: opts.kubeconfig },
  );
}
