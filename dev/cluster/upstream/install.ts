/**
 * The real product on the real node, in the order an operator installs it: its images (built here from
 * its source) pushed to the node's registry, cert-manager (its prerequisite), then the product's own
 * `config/default` (or `server-tls`) with only a user's changes, waited for as upstream's install smoke
 * test waits. Nothing of the TypeScript stand-ins runs in this mode. Taking the node down removes it
 * all (node.ts: every pod on the node is deleted first, then the control plane and its storage).
 *
 * @module
 */
import { join } from 'node:path';
import { resolveBinaries } from '../controlplane.ts';
import type { NodeCluster } from '../node/node.ts';
import { nodeBinaries } from '../node/node.ts';
import { installCertManager } from './cert-manager.ts';
import { publishUpstreamImages, type UpstreamImageRefs } from './images.ts';
import { applyUpstream, renderUpstream, waitForUpstream, type UpstreamVariant } from './product.ts';
import { missingForUpstream } from './programs.ts';

/** What the tests and `cluster:up` need to know of the installed product. */
export interface UpstreamInstall {
  readonly images: UpstreamImageRefs;
  readonly variant: UpstreamVariant;
  /** The folder of the kustomization that was applied (`kubectl apply -k` it again to restore). */
  readonly kustomizationDir: string;
  /** Seconds each step took, for the docs' figures. */
  readonly seconds: { readonly images: number; readonly certManager: number; readonly product: number };
}

/** Installs cert-manager and the product on `cluster`; throws naming what is missing or what did not become ready. */
export async function installUpstream(
  cluster: NodeCluster,
  opts: { variant?: UpstreamVariant; log?: (line: string) => void } = {},
): Promise<UpstreamInstall> {
  const missing = missingForUpstream();
  if (missing.length > 0) throw new Error(`the real product needs: ${missing.join(', ')}`);
  const log = opts.log ?? (() => undefined);
  const variant = opts.variant ?? 'default';
  const { dir } = cluster.state;
  const kubeconfig = cluster.state.controlPlane.kubeconfigPath;
  const kubectl = nodeBinaries().kubectl;
  const clock = () => performance.now() / 1000;

  let t = clock();
  log('building (cached) and pushing the product and cert-manager images to the registry');
  const images = publishUpstreamImages(cluster.registry);
  const imagesSeconds = clock() - t;

  t = clock();
  log('installing cert-manager with its Helm chart (CRDs, controller, webhook, cainjector)');
  await installCertManager(cluster.kc, { helm: resolveBinaries().helm4, dir, kubeconfig, registry: cluster.registry });
  const certManagerSeconds = clock() - t;

  t = clock();
  const kustomizationDir = join(dir, `upstream-${variant}`);
  log(
    `installing the product: kubectl apply -k (config/${variant === 'default' ? 'default' : 'overlays/server-tls'} with the registry's images)`,
  );
  renderUpstream(kubectl, kustomizationDir, variant, images, cluster.registry);
  await applyUpstream(kubectl, kubeconfig, kustomizationDir);
  await waitForUpstream(cluster.kc);
  const productSeconds = clock() - t;
  log(
    `the product is up: images ${imagesSeconds.toFixed(0)} s, cert-manager ${certManagerSeconds.toFixed(0)} s, product ${productSeconds.toFixed(0)} s`,
  );
  return {
    images,
    variant,
    kustomizationDir,
    seconds: { images: imagesSeconds, certManager: certManagerSeconds, product: productSeconds },
  };
}
