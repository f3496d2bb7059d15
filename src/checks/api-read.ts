import type { CodeDeclaration } from './check.ts';

/**
 * API001, the one code shared by every check that reads the cluster: a read the check needed failed,
 * so the check could not judge. The runner emits it for reads declared `items` (`run.ts`); a check
 * that goes on judging what it could read emits it itself. Each such check lists this declaration
 * among its codes, so that the code table knows every check that may carry it.
 */
export const API001 = {
  status: 'FAIL',
  meaning: 'A Kubernetes read that a check needed failed, so that check could not judge.',
  hint: "Read the error: grant the doctor's ServiceAccount the read the chart's ClusterRole lists (get/list on that resource), install the missing CRD, or fix the API server's reachability, then run again.",
  fix: '1. Read the error at the end of the message: the finding\'s resource names the Kind (or the CacheBackend) that could not be read. 2. Forbidden: the identity the doctor runs as lacks get or list on it; install the chart with rbac.create on (its ClusterRole grants exactly the reads the checks take) or grant the same verbs, and check with kubectl auth can-i list <resource> --all-namespaces --as=system:serviceaccount:<namespace>:<serviceaccount>. 3. "no matches for kind" or a 404: the inference-cache CRDs are missing; install them (kubectl get crd cachebackends.inferencecache.io shows whether they are there). 4. A timeout or refused connection: the API server was slow or unreachable; raise --timeout or run closer to the cluster, then run the doctor again.',
} as const satisfies CodeDeclaration;
