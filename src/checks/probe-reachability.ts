import type { CodeDeclaration } from './check.ts';
import { defineRouteCheck } from './route-verdict.ts';

const CODES = {
  PB001: {
    status: 'FAIL',
    meaning: 'The /probe route could not be reached or is not mounted (HTTP 404).',
    hint: 'A 404 means the server build lacks the /probe route: upgrade the server to the release the controller expects; no answer at all means :8081 is unreachable from the doctor (see the NP findings).',
    fix: "1. HTTP 404: the server build has no /probe route; upgrade the server to the release the controller expects (kubectl -n inference-cache-system get deploy inference-cache-server -o wide shows its image). 2. No answer at all: :8081 is unreachable from the doctor; read the NP findings and run the doctor in-cluster with the chart's Helm test, whose pod the server's NetworkPolicy admits. 3. Run the doctor again; PB002 confirms the route is mounted.",
  },
  PB002: {
    status: 'OK',
    meaning: 'The /probe route is mounted (2xx, 401, 403 or 405 to HEAD).',
    hint: 'Nothing to do.',
    fix: 'Nothing needs doing: the /probe route is mounted on :8081, so the controller can run its end-to-end self-test. It stays so while the server and controller run matching releases.',
  },
  PB003: {
    status: 'WARN',
    meaning: 'The /probe route answered HEAD with an unexpected HTTP status.',
    hint: 'Look at the server logs and at any proxy or mesh sidecar in front of :8081 for the error behind that status.',
    fix: "1. Note the HTTP status in the message: a 5xx, or a 4xx other than 401, 403, 404 and 405, comes from the server or from something in front of :8081. 2. Read the server's logs (kubectl -n inference-cache-system logs deploy/inference-cache-server) and, if a proxy or mesh sidecar sits in the path, its logs and configuration. 3. Fix that and run the doctor again; PB002 confirms.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/** ProbeReachability: HEAD /probe without a token proves that the end-to-end probe route is mounted. */
export const probeReachability = defineRouteCheck('ProbeReachability', '/probe', CODES, {
  missing: 'PB001',
  wired: 'PB002',
  unexpected: 'PB003',
});
