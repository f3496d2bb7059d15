import type { CodeDeclaration } from './check.ts';
import { defineRouteCheck } from './route-verdict.ts';

const CODES = {
  PL001: {
    status: 'FAIL',
    meaning: 'The /policy route could not be reached or is not mounted (HTTP 404).',
    hint: 'A 404 means the server build lacks the /policy route: upgrade the server to the release the controller expects; no answer at all means :8081 is unreachable from the doctor (see the NP findings).',
    fix: "1. HTTP 404: the server build has no /policy route; upgrade the server to the release the controller expects (kubectl -n inference-cache-system get deploy inference-cache-server -o wide shows its image). 2. No answer at all: :8081 is unreachable from the doctor; read the NP findings and run the doctor in-cluster with the chart's Helm test, whose pod the server's NetworkPolicy admits. 3. Run the doctor again; PL002 confirms the route is mounted.",
  },
  PL002: {
    status: 'OK',
    meaning: 'The /policy route is mounted (2xx, 401, 403 or 405 to HEAD).',
    hint: 'Nothing to do.',
    fix: 'Nothing needs doing: the /policy route is mounted on :8081, so the controller can push policies. It stays so while the server and controller run matching releases.',
  },
  PL003: {
    status: 'WARN',
    meaning: 'The /policy route answered HEAD with an unexpected HTTP status.',
    hint: 'Look at the server logs and at any proxy or mesh sidecar in front of :8081 for the error behind that status.',
    fix: "1. Note the HTTP status in the message: a 5xx, or a 4xx other than 401, 403, 404 and 405, comes from the server or from something in front of :8081. 2. Read the server's logs (kubectl -n inference-cache-system logs deploy/inference-cache-server) and, if a proxy or mesh sidecar sits in the path, its logs and configuration. 3. Fix that and run the doctor again; PL002 confirms.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/** PolicyReachability: HEAD /policy without a token proves that the eviction and lookup policy route is mounted. */
export const policyReachability = defineRouteCheck('PolicyReachability', '/policy', CODES, {
  missing: 'PL001',
  wired: 'PL002',
  unexpected: 'PL003',
});
