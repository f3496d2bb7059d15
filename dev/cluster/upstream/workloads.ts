/**
 * Workloads for the real product, as its samples write them (config/samples), with what can be had on
 * this machine: engine pods run upstream's `kvevent-fake-engine` in a container named `vllm` (the
 * runtime the webhook injects for), images come from the node's registry with its pull secret, and an
 * image that cannot be had here (LMCache, Redis) is named in that registry, where it is not, so that
 * its pull fails as a user's would: not found, never a reach outside the machine.
 *
 * @module
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { pollUntil } from '../../poll.ts';
import { CACHE_BACKENDS, GROUP, VERSION, applyObjects, createNamespace, type KubeObject } from '../manifests.ts';
import { PULL_SECRET_NAME, pullSecret, type NodeRegistry } from '../node/registry.ts';
import type { UpstreamImageRefs } from './images.ts';

/** The label the samples select engine pods by. */
export const CACHE_DOMAIN_LABEL = 'inferencecache.io/cache-domain';

/** The digests the samples pin LMCache's and Redis' images by (the webhook refuses a tag). */
const LMCACHE_DIGEST = 'sha256:b813bf0bb616d1012b6a6edcbd4a44f1576dbbdaa857962e56d48b9f7c127d13';
const REDIS_DIGEST = 'sha256:e7723ff73d963f5cc6d9c4643ea3d989527a402a319239054e9472a7fb9219a2';

/** LMCache's standalone image as a user mirroring it would name it in the registry (it is not there). */
export function lmcacheImage(registry: Pick<NodeRegistry, 'host'>): string {
  return `${registry.host}/lmcache/standalone@${LMCACHE_DIGEST}`;
}

/** Redis' image in the registry (it is not there). */
export function redisImage(registry: Pick<NodeRegistry, 'host'>): string {
  return `${registry.host}/library/redis@${REDIS_DIGEST}`;
}

/** A namespace for a workload, with the registry's pull secret in it. */
export async function workloadNamespace(
  kc: KubeConfig,
  namespace: string,
  registry: NodeRegistry,
  labels?: Record<string, string>,
): Promise<void> {
  await createNamespace(kc, namespace, labels);
  await applyObjects(kc, [pullSecret(registry, namespace)]);
}

function cacheBackend(namespace: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'CacheBackend', metadata: { name, namespace }, spec };
}

const VLLM_LMCACHE = { runtime: 'VLLM', type: 'LMCache' } as const;
const MODEL = 'meta-llama/Meta-Llama-3-8B-Instruct';

/** config/samples/cachebackend-events-only.yaml: routing only, the subscriber sidecar reports KV events. */
export function eventsOnlyBackend(namespace: string, name: string, domain: string): KubeObject {
  return cacheBackend(namespace, name, {
    ...VLLM_LMCACHE,
    integration: { mode: 'EventsOnly' },
    engineSelector: { matchLabels: { [CACHE_DOMAIN_LABEL]: domain } },
    observation: { modelID: MODEL },
  });
}

/** The smallest PodLocal LMCache server the webhook admits: l1Capacity plus 1Gi of headroom. */
function podLocalServer(registry: Pick<NodeRegistry, 'host'>): Record<string, unknown> {
  return {
    image: lmcacheImage(registry),
    port: 5555,
    l1Capacity: '1Gi',
    maxWorkers: 1,
    resources: { requests: { cpu: '10m', memory: '2Gi' }, limits: { cpu: '100m', memory: '2Gi' } },
  };
}

/** config/samples/cachebackend-vllm-podlocal-host-only.yaml, its LMCache image named in the registry. */
export function podLocalBackend(namespace: string, name: string, domain: string, registry: Pick<NodeRegistry, 'host'>): KubeObject {
  return cacheBackend(namespace, name, {
    ...VLLM_LMCACHE,
    integration: { role: 'ReadWrite' },
    engineSelector: { matchLabels: { [CACHE_DOMAIN_LABEL]: domain } },
    lmCache: { topology: 'PodLocal', chunkSizeTokens: 256, podLocal: { server: podLocalServer(registry) } },
    observation: { modelID: MODEL },
  });
}

/** config/samples/cachebackend-vllm-podlocal-managed-redis.yaml: the controller runs Redis, pulled with the pull secret. */
export function managedRedisBackend(namespace: string, name: string, domain: string, registry: Pick<NodeRegistry, 'host'>): KubeObject {
  const backend = podLocalBackend(namespace, name, domain, registry);
  return {
    ...backend,
    spec: {
      ...(backend['spec'] as Record<string, unknown>),
      remoteStorage: {
        provider: 'Redis',
        ownership: 'Managed',
        workload: { imagePullSecrets: [{ name: PULL_SECRET_NAME }] },
        redis: {
          image: redisImage(registry),
          resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { cpu: '100m', memory: '128Mi' } },
        },
      },
    },
  };
}

/** An engine pod for `domain`: upstream's fake engine publishing KV events in the `vllm` container. */
export function fakeEnginePod(namespace: string, name: string, domain: string, images: UpstreamImageRefs): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { [CACHE_DOMAIN_LABEL]: domain } },
    spec: {
      imagePullSecrets: [{ name: PULL_SECRET_NAME }],
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'vllm', image: images.kveventFakeEngine }],
    },
  };
}

/** One condition of a CacheBackend's status, as the controller wrote it. */
export interface BackendCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * Waits until the controller has written condition `type` of the CacheBackend `namespace/name` in a way
 * `reached` accepts (`what` says which, for a wait that runs out); returns that condition.
 */
export async function backendConditionReached(
  kc: KubeConfig,
  namespace: string,
  name: string,
  type: string,
  what: string,
  reached: (condition: BackendCondition) => boolean,
): Promise<BackendCondition> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  let seen: BackendCondition | undefined;
  await pollUntil(`${namespace}/${name} ${type} ${what}`, { timeoutMs: 180_000, intervalMs: 1_000 }, async () => {
    const backend = (await custom.getNamespacedCustomObject({ ...CACHE_BACKENDS, namespace, name })) as {
      status?: { conditions?: BackendCondition[] };
    };
    seen = backend.status?.conditions?.find((c) => c.type === type);
    return (seen !== undefined && reached(seen)) || `${type}=${seen?.status ?? '?'} ${seen?.reason ?? ''}`;
  });
  if (seen === undefined) throw new Error(`${namespace}/${name}: no ${type} condition`);
  return seen;
}
