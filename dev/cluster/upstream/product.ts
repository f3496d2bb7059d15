/**
 * The real product installed on the node the way its README installs it: `kubectl apply -k` of its
 * `config/default` (or the `config/overlays/server-tls` overlay), through a kustomization of our own that
 * changes only what a user changes: the two images' names (the node's registry), the pull secret on the
 * product's Deployments, and the controller's `--kvevent-subscriber-image`. Then, as upstream's own
 * install smoke test waits: both Deployments Available and the CacheIndex `cluster-default` reporting
 * `status.observedServer` (the controller polled the server's `/snapshot`).
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AppsV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { pollUntil } from '../../poll.ts';
import { GROUP, INSTALL_NAMESPACE, VERSION } from '../manifests.ts';
import { PULL_SECRET_NAME, pullSecret, type NodeRegistry } from '../node/registry.ts';
import type { UpstreamImageRefs } from './images.ts';
import { upstreamSourceDir } from './programs.ts';

/** The product's two Deployments (config/manager, config/server). */
export const CONTROLLER_DEPLOYMENT = 'inference-cache-controller-manager';
export const SERVER_DEPLOYMENT = 'inference-cache-server';
/** The server's NetworkPolicy on :8081 (config/server/networkpolicy.yaml). */
export const SERVER_NETWORK_POLICY = 'inference-cache-server-snapshot';
/** The Secret cert-manager writes for the controller's webhook (config/certmanager). */
export const WEBHOOK_CERT_SECRET = 'webhook-server-cert';
/** The CacheIndex the controller keeps from the server's /snapshot. */
export const CACHE_INDEX = 'cluster-default';

/** Which of upstream's kustomizations to install. */
export type UpstreamVariant = 'default' | 'server-tls';

/** The image names upstream's config/default gives its Deployments, which the kustomization renames. */
const UPSTREAM_IMAGE_NAMES = {
  controller: 'ghcr.io/cachebox-project/inference-cache-controller',
  server: 'ghcr.io/cachebox-project/inference-cache-server',
} as const;

/** Splits `host:port/path:tag` into the name and the tag. */
function nameAndTag(ref: string): { newName: string; newTag: string } {
  const at = ref.lastIndexOf(':');
  return { newName: ref.slice(0, at), newTag: ref.slice(at + 1) };
}

/** The kustomization a user would write in `dir` over upstream's: images, pull secret, subscriber image. */
export function userKustomization(dir: string, variant: UpstreamVariant, images: UpstreamImageRefs): Record<string, unknown> {
  // kustomize refuses absolute roots: upstream's folder is named relative to the kustomization's.
  const base = relative(dir, join(upstreamSourceDir(), 'config', variant === 'default' ? 'default' : join('overlays', 'server-tls')));
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [base, 'pull-secret.yaml'],
    images: [
      { name: UPSTREAM_IMAGE_NAMES.controller, ...nameAndTag(images.controller) },
      { name: UPSTREAM_IMAGE_NAMES.server, ...nameAndTag(images.server) },
    ],
    patches: [
      {
        target: { group: 'apps', version: 'v1', kind: 'Deployment' },
        patch: stringify([{ op: 'add', path: '/spec/template/spec/imagePullSecrets', value: [{ name: PULL_SECRET_NAME }] }]),
      },
      {
        target: { group: 'apps', version: 'v1', kind: 'Deployment', name: CONTROLLER_DEPLOYMENT },
        patch: stringify([
          { op: 'add', path: '/spec/template/spec/containers/0/args/-', value: `--kvevent-subscriber-image=${images.kveventSubscriber}` },
        ]),
      },
    ],
  };
}

/** Writes the kustomization into `dir` and returns what `kubectl kustomize` renders from it. */
export function renderUpstream(
  kubectl: string,
  dir: string,
  variant: UpstreamVariant,
  images: UpstreamImageRefs,
  registry: NodeRegistry,
): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kustomization.yaml'), stringify(userKustomization(dir, variant, images)));
  writeFileSync(join(dir, 'pull-secret.yaml'), stringify(pullSecret(registry, INSTALL_NAMESPACE)), { mode: 0o600 });
  return execFileSync(kubectl, ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * `kubectl apply -k` of the kustomization in `dir` (written by {@link renderUpstream}), again until it
 * is accepted: right after cert-manager's install its webhook refuses the Issuer and Certificate until
 * cainjector has given the webhook configuration its CA, as an operator applying twice would see.
 */
export async function applyUpstream(kubectl: string, kubeconfig: string, dir: string, timeoutMs = 120_000): Promise<void> {
  await pollUntil(`kubectl apply -k ${dir}`, { timeoutMs, intervalMs: 2_000 }, () => {
    try {
      execFileSync(kubectl, ['--kubeconfig', kubeconfig, 'apply', '-k', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return true;
    } catch (err) {
      return ((err as { stderr?: string }).stderr ?? '').trim() || (err as Error).message;
    }
  });
}

/** Waits until both Deployments are Available and the CacheIndex names the server it observed. */
export async function waitForUpstream(kc: KubeConfig, timeoutMs = 300_000): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  await pollUntil(`${CONTROLLER_DEPLOYMENT} and ${SERVER_DEPLOYMENT} Available`, { timeoutMs, intervalMs: 1_000 }, async () => {
    const states = await Promise.all(
      [CONTROLLER_DEPLOYMENT, SERVER_DEPLOYMENT].map(async (name) => {
        const d = await apps.readNamespacedDeployment({ name, namespace: INSTALL_NAMESPACE }).catch(() => undefined);
        const available = d?.status?.conditions?.find((c) => c.type === 'Available');
        return available?.status === 'True' ? true : `${name}: Available=${available?.status ?? '?'} ${available?.message ?? ''}`;
      }),
    );
    return states.every((s) => s === true) || states.filter((s) => s !== true).join('; ');
  });
  await pollUntil(`CacheIndex ${CACHE_INDEX} status.observedServer`, { timeoutMs, intervalMs: 1_000 }, async () => {
    const index = (await kc
      .makeApiClient(CustomObjectsApi)
      .getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'cacheindices', name: CACHE_INDEX })
      .catch(() => undefined)) as { status?: { observedServer?: string } } | undefined;
    return (index?.status?.observedServer ?? '') !== '' || `observedServer not set (${index === undefined ? 'no CacheIndex' : 'empty'})`;
  });
}
