import type { CodeDeclaration } from './check.ts';
import { defineRouteCheck } from './route-verdict.ts';

const CODES = {
  PL001: {
    status: 'FAIL',
    meaning: 'The /policy route could not be reached or is not mounted (HTTP 404).',
    hint: 'A 404 means the server build lacks the /policy route: upgrade the server to the release the controller expects; no answer at all means :8081 is unreachable from the doctor (see the NP findings).',
  },
  PL002: { status: 'OK', meaning: 'The /policy route is mounted (2xx, 401, 403 or 405 to HEAD).', hint: 'Nothing to do.' },
  PL003: {
    status: 'WARN',
    meaning: 'The /policy route answered HEAD with an unexpected HTTP status.',
    hint: 'Look at the server logs and at any proxy or mesh sidecar in front of :8081 for the error behind that status.',
  },
} as const satisfies Record<string, CodeDeclaration>;

/** PolicyReachability: HEAD /policy without a token proves that the eviction and lookup policy route is mounted. */
export const policyReachability = defineRouteCheck('PolicyReachability', '/policy', CODES, {
  missing: 'PL001',
  wired: 'PL002',
  unexpected: 'PL003',
});
