/** PolicyReachability (PL) and ProbeReachability (PB): docs/upstream.md. */
import { policyReachability } from '../../../src/checks/policy-reachability.ts';
import { probeReachability } from '../../../src/checks/probe-reachability.ts';
import type { Code } from '../../../src/checks/registry.ts';
import type { HttpResult } from '../../../src/probes/results.ts';
import { HTTP_BASE, input, response, probed, type Case, type CheckTable } from './fixtures.ts';

type Route = 'policy' | 'probe';
const CODES_OF: Readonly<Record<Route, readonly [missing: Code, wired: Code, unexpected: Code]>> = {
  policy: ['PL001', 'PL002', 'PL003'],
  probe: ['PB001', 'PB002', 'PB003'],
};

const WIRED = [200, 204, 299, 401, 403, 405];
const UNEXPECTED = [100, 302, 400, 402, 406, 499, 500, 503];

function routeCases(route: Route): Case[] {
  const [missing, wired, unexpected] = CODES_OF[route];
  const url = `${HTTP_BASE}/${route}`;
  const withResult = (result: HttpResult) => input({ probes: { ...probed({ [route]: result }) } });
  return [
    { name: 'config-only → nothing', input: input(), expected: [] },
    {
      name: `a redirect to a mounted route → ${wired} that names where the answer came from`,
      input: withResult({ kind: 'response', status: 405, redirect: { count: 1, to: `http://h:9/${route}2`, tokenWithheld: false } }),
      expected: [[wired, url, ['405', `after 1 redirect, answered by http://h:9/${route}2`]]],
    },
    {
      name: 'location failed → nothing',
      input: input({ probes: probed({ location: { kind: 'failed', error: 'x' } }) }),
      expected: [],
    },
    {
      name: `build error → ${missing} with the error`,
      input: withResult({ kind: 'build-error', error: 'bad host' }),
      expected: [[missing, url, ['bad host']]],
    },
    {
      name: `transport error → ${missing} with the error`,
      input: withResult({ kind: 'transport-error', error: 'ECONNREFUSED' }),
      expected: [[missing, url, ['ECONNREFUSED']]],
    },
    { name: `HTTP 404 → ${missing}`, input: withResult(response(404)), expected: [[missing, url, ['404']]] },
    {
      name: `never admitted → ${missing} with the error and the wait`,
      input: input({
        probes: {
          ...probed({
            [route]: { kind: 'transport-error', error: 'ECONNREFUSED' },
            settling: { http: { failure: 'refused', tries: 30, accepted: false, afterPodStartMs: 10_049 } },
          }),
        },
      }),
      expected: [
        [missing, url, ["ECONNREFUSED (connections were refused for 10.0s after the doctor's pod started, 30 tries, none accepted)"]],
      ],
    },
    {
      name: `admitted after a wait → ${wired} says so; the gRPC port's wait is not this one's`,
      input: input({
        probes: {
          ...probed({
            [route]: response(405),
            settling: {
              grpc: { failure: 'unanswered', tries: 2, accepted: true, afterPodStartMs: 3_000 },
              http: { failure: 'refused', tries: 2, accepted: true, afterPodStartMs: 600 },
            },
          }),
        },
      }),
      expected: [
        [
          wired,
          url,
          [
            "405 to a HEAD request, which changes nothing) (connections were refused for 0.6s after the doctor's pod started, then accepted)",
          ],
          ['3.0s'],
        ],
      ],
    },
    ...WIRED.map((status): Case => ({
      name: `HTTP ${status} → ${wired}`,
      input: withResult(response(status)),
      expected: [[wired, url, [String(status)]]],
    })),
    ...UNEXPECTED.map((status): Case => ({
      name: `HTTP ${status} → ${unexpected}`,
      input: withResult(response(status)),
      expected: [[unexpected, url, [String(status)]]],
    })),
    {
      name: 'resource is the full URL of the located base',
      input: input({
        probes: { ...probed({ location: { kind: 'found', grpcTarget: 'a:9090', httpBase: 'http://a.b.svc:8081' } }) },
      }),
      expected: [[wired, `http://a.b.svc:8081/${route}`]],
    },
  ];
}

export const policyTable: CheckTable = { check: policyReachability, cases: routeCases('policy') };
export const probeTable: CheckTable = { check: probeReachability, cases: routeCases('probe') };
