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
} as const satisfies CodeDeclaration;
