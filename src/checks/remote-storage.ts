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
  },
  RS002: { status: 'OK', meaning: "The CacheBackend's managed remote tier is ready.", hint: 'Nothing to do.' },
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
