/** SnapshotReachability (SN): docs/upstream.md, docs/deviations.md#dev-7 (too-large body). */
import { snapshotReachability } from '../../../src/checks/snapshot-reachability.ts';
import { HTTP_BASE, input, response, probed, type Case, type ServerOverrides, type CheckTable } from './fixtures.ts';

const URL = `${HTTP_BASE}/snapshot`;
const NOT_JSON = /not (valid )?JSON|did not parse/i;

const failingStatuses = [404, 500, 503, 204, 302, 201, 405].map((status): Case => ({
  name: `HTTP ${status} → SN001 with the status`,
  input: input({ probes: { ...probed({ snapshot: response(status) }) } }),
  expected: [['SN001', URL, [String(status)]]],
}));

const authStatuses = [401, 403].flatMap((status) =>
  [true, false].map((tokenSent): Case => ({
    name: `HTTP ${status}, token ${tokenSent ? 'sent' : 'not sent'} → SN005 only (never SN003)`,
    input: input({ probes: { ...probed({ snapshot: response(status), tokenSent }) } }),
    expected: [['SN005', URL, [String(status)]]],
  })),
);

/** A 200 with JSON that came through redirects. */
const redirected = (tokenWithheld: boolean): ServerOverrides => ({
  snapshot: { kind: 'response', status: 200, body: { kind: 'json' }, redirect: { count: 2, to: 'http://other:9/snap', tokenWithheld } },
});

/** The controller-facing port refused a fresh pod for 2.1 s. */
const settled = { http: { failure: 'refused', tries: 5, accepted: true, afterPodStartMs: 2_050 } } as const;

export const snapshotCases: readonly Case[] = [
  { name: 'config-only → nothing', input: input(), expected: [] },
  {
    name: 'a fresh pod waited for its admission → SN004 says how long the port refused it',
    input: input({ probes: { ...probed({ settling: settled }) } }),
    expected: [['SN004', URL, ["JSON (connections were refused for 2.1s after the doctor's pod started, then accepted)"]]],
  },
  {
    name: 'redirected after a wait → SN004 notes both, the redirect first',
    input: input({ probes: probed({ ...redirected(false), settling: settled }) }),
    expected: [['SN004', URL, ["answered by http://other:9/snap) (connections were refused for 2.1s after the doctor's pod started"]]],
  },
  {
    name: 'redirected within the origin → SN004 that names the redirect',
    input: input({ probes: probed(redirected(false)) }),
    expected: [['SN004', URL, ['after 2 redirects, answered by http://other:9/snap'], ['not sent']]],
  },
  {
    name: 'redirected to another origin: the token was withheld, so a 200 is also SN003',
    input: input({ probes: probed(redirected(true)) }),
    expected: [
      ['SN004', URL, ['answered by http://other:9/snap; the token was not sent there']],
      ['SN003', URL, ['answered by http://other:9/snap']],
    ],
  },
  {
    name: 'a redirect that ends in 401 is SN005 and says so',
    input: input({
      probes: {
        ...probed({
          snapshot: { kind: 'response', status: 401, redirect: { count: 1, to: 'http://h:8081/login', tokenWithheld: false } },
        }),
      },
    }),
    expected: [['SN005', URL, ['401', 'after 1 redirect, answered by http://h:8081/login']]],
  },
  {
    name: 'location failed → nothing (SV001 alone reports it)',
    input: input({ probes: probed({ location: { kind: 'failed', error: 'no service' } }) }),
    expected: [],
  },
  {
    name: 'build error → SN001 with the error',
    input: input({ probes: { ...probed({ snapshot: { kind: 'build-error', error: 'invalid URL "http://a b"' } }) } }),
    expected: [['SN001', URL, ['invalid URL "http://a b"']]],
  },
  {
    name: 'transport error → SN001 with the error',
    input: input({ probes: { ...probed({ snapshot: { kind: 'transport-error', error: 'connect ECONNREFUSED 10.0.0.1:8081' } }) } }),
    expected: [['SN001', URL, ['connect ECONNREFUSED 10.0.0.1:8081']]],
  },
  ...authStatuses,
  ...failingStatuses,
  {
    name: '200 not JSON → SN002',
    input: input({ probes: { ...probed({ snapshot: response(200, { kind: 'not-json' }) }) } }),
    expected: [['SN002', URL, [NOT_JSON]]],
  },
  {
    name: '200 not JSON, no token → SN002 only (no SN003)',
    input: input({ probes: { ...probed({ snapshot: response(200, { kind: 'not-json' }), tokenSent: false }) } }),
    expected: [['SN002', URL]],
  },
  {
    name: '200 read error → SN002 with the error',
    input: input({ probes: { ...probed({ snapshot: response(200, { kind: 'read-error', error: 'unexpected EOF' }) }) } }),
    expected: [['SN002', URL, ['unexpected EOF']]],
  },
  {
    name: '200 too large (8 MiB cap) → SN002 naming the cap, not "not JSON" (docs/deviations.md#dev-7)',
    input: input({ probes: { ...probed({ snapshot: response(200, { kind: 'too-large', limitBytes: 8 * 1024 * 1024 }) }) } }),
    expected: [['SN002', URL, [/8 MiB|8388608/], [NOT_JSON]]],
  },
  {
    name: '200 too large (1 MiB cap) → SN002 naming that cap',
    input: input({
      probes: { ...probed({ snapshot: response(200, { kind: 'too-large', limitBytes: 1024 * 1024 }), tokenSent: false }) },
    }),
    expected: [['SN002', URL, [/1 MiB|1048576/], [NOT_JSON]]],
  },
  {
    name: '200 JSON with token → [SN004]',
    input: input({ probes: { ...probed({ snapshot: response(200, { kind: 'json' }), tokenSent: true }) } }),
    expected: [['SN004', URL, ['200']]],
  },
  {
    name: '200 JSON without token → [SN004, SN003] in that order',
    input: input({ probes: { ...probed({ snapshot: response(200, { kind: 'json' }), tokenSent: false }) } }),
    expected: [
      ['SN004', URL, ['200']],
      ['SN003', URL],
    ],
  },
  {
    name: 'resource is the full URL of the located base',
    input: input({
      probes: {
        ...probed({ location: { kind: 'found', grpcTarget: 'svc.ns.svc:9090', httpBase: 'http://svc.ns.svc:8081' } }),
      },
    }),
    expected: [['SN004', 'http://svc.ns.svc:8081/snapshot']],
  },
];

export const snapshotTable: CheckTable = { check: snapshotReachability, cases: snapshotCases };
