import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';
import type { ServerProbes, ServerTransport } from '../probes/results.ts';
import type { Finding } from '../report/finding.ts';
import { settleNote } from './settle-note.ts';

const CODES = {
  SV001: {
    status: 'FAIL',
    meaning: 'The gRPC health check of the cache-plane server failed, or the server could not be located.',
    hint: 'Check that the inference-cache-server Service exists and has ready endpoints and that its pods are Running, or pass --server-endpoint host:port; the error names what failed.',
    fix: '1. If the server could not be located, look for its Service: kubectl get services -A --field-selector metadata.name=inference-cache-server; let the doctor get and list Services, or pass --server-endpoint host:port. 2. Check that the Service has ready endpoints and the server pods are Running: kubectl -n inference-cache-system get endpoints inference-cache-server, and get pods -l app.kubernetes.io/component=server. 3. If the message says the health call was not made because of TLS, fix the ServerTLS (TL) findings of the same run first. 4. From a workstation, port-forward the Service (kubectl -n inference-cache-system port-forward svc/inference-cache-server 9090 8081) and pass --server-endpoint localhost:9090.',
  },
  SV002: {
    status: 'FAIL',
    meaning: 'The cache-plane server answered its health check with a status other than SERVING.',
    hint: "Read the server pods' logs for why they report NOT_SERVING (a backing store or the index not ready yet) and restart them once the cause is fixed.",
    fix: '1. The server answers but says it cannot serve: read its logs for why (kubectl -n inference-cache-system logs deploy/inference-cache-server). 2. Fix the cause they name, then restart it: kubectl -n inference-cache-system rollout restart deploy/inference-cache-server. 3. Run the doctor again; SV003 confirms the server reports SERVING.',
  },
  SV003: {
    status: 'OK',
    meaning: 'The cache-plane server reports SERVING over gRPC.',
    hint: 'Nothing to do.',
    fix: 'Nothing needs doing: the server reports SERVING on its gRPC health service. It stays so while its pods run and the inference-cache-server Service keeps ready endpoints.',
  },
} as const satisfies Record<string, CodeDeclaration>;

/** Why no health call was made, by what the gRPC port turned out to speak. */
const TRANSPORT_BLOCKS: Readonly<Record<ServerTransport['kind'], string>> = {
  'plaintext-port': 'the port speaks plaintext and TLS was asked for',
  'tls-port': 'the port speaks TLS and plaintext was asked for',
  tls: 'the TLS connection could not be verified or was refused',
  'tls-refused': 'the server refused the TLS handshake',
};

/**
 * ServerReachability: the gRPC health of the cache-plane server (what its port speaks is ServerTLS's
 * to judge). Also the one place that reports a
 * server that could not be located (then with no resource, and no HTTP probe findings follow).
 */
export const serverReachability = defineCheck({
  name: 'ServerReachability',
  codes: CODES,
  reads: {},
  probes: { server: 'required' },
  judge({ probes }, emit) {
    const note = settleNote(probes.server.settling);
    return judgeHealth(probes.server, emit).map((f) => (note === '' ? f : { ...f, message: `${f.message}${note}` }));
  },
});

/** The finding of the gRPC health probe, before a wait for the pod's admission is noted in it. */
function judgeHealth(server: ServerProbes, emit: EmitFor<typeof CODES>): Finding[] {
  const { location, health, transport } = server;
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
  if (health === undefined && transport !== undefined) {
    return [
      emit('SV001', target, `the gRPC health check was not made: ${TRANSPORT_BLOCKS[transport.kind]} (the ServerTLS findings say more)`),
    ];
  }
  if (health === undefined) {
    return [
      emit(
        'SV001',
        target,
        'no gRPC connection to the cache-plane server could be set up; pass --server-endpoint (host:port) or check the inference-cache-server Service',
      ),
    ];
  }
  if (health.kind === 'error') return [emit('SV001', target, `the gRPC health check did not succeed: ${health.error}`)];
  if (health.status !== 'SERVING') {
    return [emit('SV002', target, `the server reports health status ${health.status}; a working server reports SERVING`)];
  }
  const through = transport?.kind === 'tls' ? ', through TLS' : '';
  return [emit('SV003', target, `the server reports SERVING over gRPC health${through}`)];
}
