import type { Finding } from '../report/finding.ts';
import { cacheBackendHealth } from './cachebackend-health.ts';
import { cachePolicyCoverage } from './cachepolicy-coverage.ts';
import { cacheTenantHealth } from './cachetenant-health.ts';
import { enginePodInjectionAudit } from './engine-pod-injection.ts';
import { imagePullability } from './image-pull.ts';
import type { CheckInput } from './input.ts';
import { namespaceScope } from './namespace-scope.ts';
import { networkPolicyReachability } from './network-policy.ts';
import { nodeFit } from './node-fit.ts';
import { orphanPodCheck } from './orphan-pods.ts';
import { policyReachability, probeReachability } from './route-reachability.ts';
import { serverReachability } from './server-reachability.ts';
import { snapshotReachability } from './snapshot-reachability.ts';

/** A check: a pure function from the gathered input to its findings, in emission order. */
export type Check = (input: CheckInput) => Finding[];

/** The checks in their fixed run order. Upstream's nine come first; ours follow them. */
export const CHECKS: readonly Check[] = [
  serverReachability,
  snapshotReachability,
  policyReachability,
  probeReachability,
  cacheBackendHealth,
  enginePodInjectionAudit,
  orphanPodCheck,
  cacheTenantHealth,
  cachePolicyCoverage,
  namespaceScope,
  nodeFit,
  imagePullability,
  networkPolicyReachability,
];

/** Runs every check in order and concatenates their findings. */
export function judge(input: CheckInput): Finding[] {
  return CHECKS.flatMap((check) => check(input));
}
