/** ServerReachability (SV): docs/upstream.md. */
import { serverReachability } from '../../../src/checks/server-reachability.ts';
import type { HealthStatus } from '../../../src/probes/results.ts';
import { GRPC_TARGET, input, omit, probed, serverOf, type Case, type CheckTable } from './fixtures.ts';

const IN_CLUSTER = 'inference-cache-server.inference-cache-system.svc:9090';

const notServing = (['NOT_SERVING', 'UNKNOWN', 'SERVICE_UNKNOWN'] as const satisfies readonly HealthStatus[]).map((status): Case => ({
  name: `health ${status} → SV002 naming the status`,
  input: input({ probes: { ...probed({ health: { kind: 'status', status } }) } }),
  expected: [['SV002', GRPC_TARGET, [status]]],
}));

export const serverCases: readonly Case[] = [
  { name: 'config-only (no server probes) → nothing', input: input(), expected: [] },
  {
    name: 'location failed → one SV001 with no resource property',
    input: input({ probes: probed({ location: { kind: 'failed', error: 'services is forbidden' } }) }),
    expected: [['SV001', undefined, ['services is forbidden']]],
  },
  {
    name: 'gRPC error → SV001 on the dialled target, carrying the error',
    input: input({
      probes: { ...probed({ health: { kind: 'error', error: 'rpc error: code = Unavailable desc = connection refused' } }) },
    }),
    expected: [['SV001', GRPC_TARGET, ['rpc error: code = Unavailable desc = connection refused']]],
  },
  {
    name: 'located but no health result (no client) → SV001 on the target',
    input: input({ probes: { ...probed(), server: omit(serverOf(), 'health') } }),
    expected: [['SV001', GRPC_TARGET]],
  },
  ...notServing,
  {
    name: 'SERVING after the pod waited for its admission → SV003 says how long the port refused it',
    input: input({
      probes: { ...probed({ settling: { grpc: { failure: 'refused', tries: 3, accepted: true, afterPodStartMs: 1_351 } } }) },
    }),
    expected: [
      [
        'SV003',
        GRPC_TARGET,
        ["SERVING over gRPC health (connections were refused for 1.4s after the doctor's pod started, then accepted)"],
      ],
    ],
  },
  {
    name: 'never admitted → SV001 with the error and the wait',
    input: input({
      probes: {
        ...probed({
          health: { kind: 'error', error: 'connect ECONNREFUSED 10.96.0.5:9090' },
          settling: { grpc: { failure: 'unreachable', tries: 20, accepted: false, afterPodStartMs: 9_960 } },
        }),
      },
    }),
    expected: [
      [
        'SV001',
        GRPC_TARGET,
        ["ECONNREFUSED 10.96.0.5:9090 (the address was unreachable for 10.0s after the doctor's pod started, 20 tries, none accepted)"],
      ],
    ],
  },
  {
    name: 'only the HTTP port made the pod wait → SV003 without a word of it',
    input: input({
      probes: { ...probed({ settling: { http: { failure: 'refused', tries: 1, accepted: true, afterPodStartMs: 800 } } }) },
    }),
    expected: [['SV003', GRPC_TARGET, ['SERVING'], ['pod started']]],
  },
  {
    name: 'SERVING → SV003 with resource = the gRPC target exactly as dialled',
    input: input({
      probes: { ...probed({ location: { kind: 'found', grpcTarget: IN_CLUSTER, httpBase: 'http://x:8081' } }) },
    }),
    expected: [['SV003', IN_CLUSTER, ['SERVING']]],
  },
  {
    name: 'SERVING even when every HTTP probe failed → SV003 only (SV judges gRPC alone)',
    input: input({
      probes: {
        ...probed({
          snapshot: { kind: 'transport-error', error: 'refused' },
          policy: { kind: 'transport-error', error: 'refused' },
          probe: { kind: 'transport-error', error: 'refused' },
        }),
      },
    }),
    expected: [['SV003', GRPC_TARGET]],
  },
];

export const serverTable: CheckTable = { check: serverReachability, cases: serverCases };
