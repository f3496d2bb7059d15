/**
 * cert-manager v1.21.1 on the node, installed the way its documentation installs it: its Helm chart
 * (from its module in the Go module cache) with `crds.enabled`, the three components' images from the
 * node's registry (`imageRegistry`, `imageNamespace` and each component's tag; built here from its
 * sources) and the registry's pull secret (`global.imagePullSecrets`). The start-up API check is a Job
 * of a fourth image that is not built here; `helm install --wait` waits for the three Deployments instead.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { createNamespace, applyObjects } from '../manifests.ts';
import { pullSecret, PULL_SECRET_NAME, type NodeRegistry } from '../node/registry.ts';
import { CERT_MANAGER_IMAGE_NAMESPACE } from './images.ts';
import { certManagerChartDir, upstreamVersions } from './programs.ts';

export const CERT_MANAGER_NAMESPACE = 'cert-manager';
export const CERT_MANAGER_RELEASE = 'cert-manager';

/** Runs `helm` with a configuration of its own under `dir`, against `kubeconfig`; throws with its stderr. */
export function helmIn(helm: string, dir: string, kubeconfig: string, args: readonly string[], timeoutMs = 600_000): string {
  const home = join(dir, 'helm-upstream');
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    KUBECONFIG: kubeconfig,
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_DATA_HOME: join(home, 'data'),
  };
  try {
    return execFileSync(helm, [...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`helm ${args.slice(0, 2).join(' ')}: ${(e.stderr ?? '').trim() || e.message}`, { cause: err });
  }
}

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
  opts: { helm: string; dir: string; kubeconfig: string; registry: NodeRegistry },
): Promise<void> {
  await createNamespace(kc, CERT_MANAGER_NAMESPACE);
  await applyObjects(kc, [pullSecret(opts.registry, CERT_MANAGER_NAMESPACE)]);
  helmIn(opts.helm, opts.dir, opts.kubeconfig, [
    'install',
    CERT_MANAGER_RELEASE,
    certManagerChartDir(),
    '--namespace',
    CERT_MANAGER_NAMESPACE,
    ...certManagerValues(opts.registry).flatMap((v) => ['--set', v]),
    '--wait',
    '--timeout',
    '5m',
  ]);
}
