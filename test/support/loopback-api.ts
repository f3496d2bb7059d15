// A plain-HTTP loopback server standing in for the API server in unit tests, and a KubeApi that talks
// to it with a bearer token, as the doctor talks to a real one.
import { createServer, type RequestListener } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeApi } from '../../src/cluster/transport/kube-api.ts';

/** A running loopback server and the client pointed at it. */
export interface LoopbackApi {
  readonly api: KubeApi;
  readonly close: () => Promise<void>;
}

/** Starts a server on 127.0.0.1 that answers every request with `listener`. */
export async function startLoopbackApi(listener: RequestListener): Promise<LoopbackApi> {
  const server = createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser(
    { name: 'c', server: `http://127.0.0.1:${(server.address() as { port: number }).port}`, skipTLSVerify: true },
    { name: 'u', token: 't' },
  );
  return { api: new KubeApi(kc), close: () => new Promise<void>((r) => server.close(() => r())) };
}
