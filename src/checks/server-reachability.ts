import { emitterFor, type Finding } from '../report/finding.ts';
import type { CheckInput } from './input.ts';

const emit = emitterFor('ServerReachability');

/**
 * ServerReachability: the gRPC health of the cache-plane server. Also the one place that reports a
 * server that could not be located (then with no resource, and no HTTP probe findings follow).
 */
export function serverReachability({ probes }: CheckInput): Finding[] {
  const server = probes.server;
  if (server === undefined) return [];
  const { location, health } = server;
  if (location.kind === 'failed') {
    return [
      emit(
        'SV001',
        undefined,
        `the cache-plane server could not be located: ${location.error}. Pass --server-endpoint, or check the inference-cache-server Service and that this identity may get and list Services`,
      ),
    ];
  }
  const target = location.grpcTarget;
  if (health === undefined) {
    return [emit('SV001', target, 'no gRPC connection to the cache-plane server could be set up; pass --server-endpoint (host:port) or check the inference-cache-server Service')];
  }
  if (health.kind === 'error') {
    return [emit('SV001', target, `the gRPC health check did not succeed: ${health.error}`)];
  }
  if (health.status !== 'SERVING') {
    return [emit('SV002', target, `the server reports health status ${health.status}; a working server reports SERVING`)];
  }
  return [emit('SV003', target, 'the server reports SERVING over gRPC health')];
}
