import type { CacheBackend } from '../cluster/kinds/cache-backend.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration } from './check.ts';
import { backendResource, conditionOf, isExternal } from './helpers.ts';

const CODES = {
  API001,
  RS001: {
    status: 'WARN',
    meaning: "The controller reports the CacheBackend's managed remote tier as not ready (its RemoteStorageReady condition is not True).",
    hint: "Look at the remote tier's Deployment and pods in the backend's namespace (kubectl get deploy,pods -n …): an image that cannot be pulled, a pending pod or a crash loop keeps the tier, and the backend's shared cache, down. spec.remoteStorage.redis.image and spec.remoteStorage.workload set its image and pull secrets.",
    fix: "1. Look at the tier's workload in the backend's namespace: kubectl -n <namespace> get deploy,pods,svc -l app.kubernetes.io/managed-by=inference-cache-controller. 2. A pod in ImagePullBackOff: set spec.remoteStorage.redis.image to an image the nodes can pull (a mirror in an air-gapped cluster) and give pull secrets through spec.remoteStorage.workload. 3. A pod Pending: see the NF findings; a crash loop: read its logs (kubectl -n <namespace> logs <pod> --previous). 4. The condition's reason and message (kubectl -n <namespace> describe cachebackend <name>) say what the controller waits for.",
  },
  RS002: {
    status: 'OK',
    meaning: "The CacheBackend's managed remote tier is ready.",
    hint: 'Nothing to do.',
    fix: "Nothing needs doing: the controller reports the managed remote tier ready. It stays so while the tier's Deployment and pods in the backend's namespace run; RS001 appears when they stop.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/** A backend whose remote tier the controller runs: it has one, and not External. */
function isManaged(b: CacheBackend): boolean {
  return b.remoteStorage !== undefined && !isExternal(b);
}

/**
 * RemoteStorageReadiness (beyond upstream): the controller's own verdict on each managed remote tier,
 * its RemoteStorageReady condition. Upstream's doctor never reads it, so a Redis that never came up
 * showed only as a backend not Ready for a reason about engine pods (docs/deviations.md). A backend
 * without the condition yet is left to CB001: the controller has not reconciled it.
 */
export const remoteStorageReadiness = defineCheck({
  name: 'RemoteStorageReadiness',
  codes: CODES,
  reads: { cacheBackends: 'items' },
  probes: {},
  judge({ state }, emit) {
    return state.cacheBackends.filter(isManaged).flatMap((b) => {
      const resource = backendResource(b);
      const remote = conditionOf(b.conditions, 'RemoteStorageReady');
      if (remote === undefined) return [];
      if (remote.status === 'True') return [emit('RS002', resource, `the managed remote tier is ready (reason ${remote.reason})`)];
      const detail = remote.message === '' ? '' : `: ${remote.message}`;
      return [
        emit(
          'RS001',
          resource,
          `RemoteStorageReady=${remote.status} (reason ${remote.reason}): the managed remote tier is not serving${detail}`,
        ),
      ];
    });
  },
});
