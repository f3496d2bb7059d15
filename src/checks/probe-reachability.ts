import type { CodeDeclaration } from './check.ts';
import { defineRouteCheck } from './route-verdict.ts';

const CODES = {
  PB001: {
    status: 'FAIL',
    meaning: 'The /probe route could not be reached or is not mounted (HTTP 404).',
    hint: 'A 404 means the server build lacks the /probe route: upgrade the server to the release the controller expects; no answer at all means :8081 is unreachable from the doctor (see the NP findings).',
  },
  PB002: { status: 'OK', meaning: 'The /probe route is mounted (2xx, 401, 403 or 405 to HEAD).', hint: 'Nothing to do.' },
  PB003: {
    status: 'WARN',
    meaning: 'The /probe route answered HEAD with an unexpected HTTP status.',
    hint: 'Look at the server logs and at any proxy or mesh sidecar in front of :8081 for the error behind that status.',
  },
} as const satisfies Record<string, CodeDeclaration>;

/** ProbeReachability: HEAD /probe without a token proves that the end-to-end probe route is mounted. */
export const probeReachability = defineRouteCheck('ProbeReachability', '/probe', CODES, {
  missing: 'PB001',
  wired: 'PB002',
  unexpected: 'PB003',
});
