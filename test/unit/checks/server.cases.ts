/** ServerReachability (SV): docs/upstream.md. */
import { serverReachability } from '../../../src/checks/server-reachability.ts';
import type { HealthStatus } from '../../../src/probes/results.ts';
import { GRPC_TARGET, input, omit, server, type Case, type CheckTable } from './fixtures.ts';

const IN_CLUSTER = 'inference-cache-server.inference-cache-system.svc:9090';

const notServing = (['NOT_SERVING', 'UNKNOWN', 'SERVICE_UNKNOWN'] as const satisfies readonly HealthStatus[]).map((status): Case => ({
  name: `health ${status} → SV002 naming the status`,
  input: input({ probes: { server: server({ health: { kind: 'status', status } }) } }),
  expected: [['SV002', GRPC_TARGET, [status]]],
}));

export const serverCases: readonly Case[] = [
  { name: 'config-only (no server probes) → nothing', input: input(), expected: [] },
  {
    name: 'location failed → one SV001 with no resource property',
    input: input({ probes: { server: { location: { kind: 'failed', error: 'services is forbidden' }, tokenSent: false } } }),
    expected: [['SV001', undefined, ['services is forbidden']]],
  },
  {
    name: 'gRPC error → SV001 on the dialled target, carrying the error',
    input: input({
      probes: { server: server({ health: { kind: 'error', error: 'rpc error: code = Unavailable desc = connection refused' } }) },
    }),
    expected: [['SV001', GRPC_TARGET, ['rpc error: code = Unavailable desc = connection refused']]],
  },
  {
    name: 'located but no health result (no client) → SV001 on the target',
    input: input({ probes: { server: omit(server(), 'health') } }),
    expected: [['SV001', GRPC_TARGET]],
  },
  ...notServing,
  {
    name: 'SERVING → SV003 with resource = the gRPC target exactly as dialled',
    input: input({
      probes: { server: server({ location: { kind: 'found', grpcTarget: IN_CLUSTER, httpBase: 'http://x:8081' } }) },
    }),
    expected: [['SV003', IN_CLUSTER, ['SERVING']]],
  },
  {
    name: 'SERVING even when every HTTP probe failed → SV003 only (SV judges gRPC alone)',
    input: input({
      probes: {
        server: server({
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
