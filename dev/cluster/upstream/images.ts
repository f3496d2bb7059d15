/**
 * The real product's images and cert-manager's: each static program on `scratch`, as numeric user
 * 65532 (their pods set `runAsNonRoot`, which needs a number to check), built with buildah into OCI
 * archives kept in the cache, then pushed to the node's registry, from which the kubelet pulls them with
 * the pull secret, as it would from a user's registry. Upstream's own images put the same programs on
 * distroless static nonroot; nothing in them reads the base's files.
 *
 * @module
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from '../../paths.ts';
import { scratchImage, stale } from '../images.ts';
import { pushArchive, type NodeRegistry } from '../node/registry.ts';
import { certManagerPrograms, upstreamPrograms, upstreamVersions } from './programs.ts';

/** Where each image lives in the registry: repository paths without the host, and tags. */
export interface UpstreamImageRefs {
  readonly controller: string;
  readonly server: string;
  readonly kveventSubscriber: string;
  readonly kveventFakeEngine: string;
  /** cert-manager's chart composes `<registry>/<namespace>/<name>:<tag>`: these three follow it. */
  readonly certManagerController: string;
  readonly certManagerWebhook: string;
  readonly certManagerCainjector: string;
}

/** The registry namespace cert-manager's chart names its images under (`imageNamespace`). */
export const CERT_MANAGER_IMAGE_NAMESPACE = 'jetstack';

/** The images' references in `registry` (host included). */
export function upstreamImageRefs(registry: Pick<NodeRegistry, 'host'>): UpstreamImageRefs {
  const { commit, certManager } = upstreamVersions();
  const product = (name: string) => `${registry.host}/cachebox-project/inference-cache-${name}:${commit}`;
  const cm = (name: string) => `${registry.host}/${CERT_MANAGER_IMAGE_NAMESPACE}/cert-manager-${name}:${certManager}`;
  return {
    controller: product('controller'),
    server: product('server'),
    kveventSubscriber: product('kvevent-subscriber'),
    kveventFakeEngine: product('kvevent-fake-engine'),
    certManagerController: cm('controller'),
    certManagerWebhook: cm('webhook'),
    certManagerCainjector: cm('cainjector'),
  };
}

/**
 * Builds what is stale (cached under `<cache>/upstream-images`) and pushes all seven to the registry.
 * Returns their references.
 */
export function publishUpstreamImages(registry: NodeRegistry): UpstreamImageRefs {
  const dir = join(cacheRoot(), 'upstream-images');
  mkdirSync(dir, { recursive: true });
  const p = upstreamPrograms();
  const cm = certManagerPrograms();
  const images: readonly (readonly [keyof UpstreamImageRefs, string, string])[] = [
    ['controller', p.controller, '/controller'],
    ['server', p.server, '/server'],
    ['kveventSubscriber', p.kveventSubscriber, '/kvevent-subscriber'],
    ['kveventFakeEngine', p.kveventFakeEngine, '/kvevent-fake-engine'],
    ['certManagerController', cm.controller, '/app/cmd/controller/controller'],
    ['certManagerWebhook', cm.webhook, '/app/cmd/webhook/webhook'],
    ['certManagerCainjector', cm.cainjector, '/app/cmd/cainjector/cainjector'],
  ];
  const refs = upstreamImageRefs(registry);
  for (const [key, program, target] of images) {
    // Local names: the archive is pushed under the registry's name below.
    const local = `localhost/inferencecache-test/upstream-${key.toLowerCase()}:latest`;
    const archive = join(dir, `${key}.oci.tar`);
    if (stale(archive, [program])) scratchImage(local, program, target, '65532:65532', archive);
    pushArchive(registry, archive, refs[key]);
  }
  return refs;
}
