// A TCP forwarder that starts listening only after a delay: what a fresh pod sees of a port fenced by
// a NetworkPolicy enforcer that has not admitted it yet (refused), until it has (forwarded).
import { connect, createServer, type Server } from 'node:net';

export interface LateProxy {
  /** The loopback address it listens on, once it does. */
  readonly host: string;
  /** Resolves once every port listens. */
  readonly listening: Promise<void>;
  /** Stops listening (waiting for the delay first) and ends every forwarded connection. */
  readonly close: () => Promise<void>;
}

/**
 * Forwards `host:listen` to `target:port` for each pair of `ports`, listening `afterMs` from now.
 * `host` must be a loopback address nothing else uses.
 */
export function startLateProxy(
  host: string,
  target: string,
  ports: readonly (readonly [listen: number, port: number])[],
  afterMs: number,
): LateProxy {
  const servers: Server[] = [];
  const sockets = new Set<{ destroy: () => void }>();
  const listenAll = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, afterMs));
    for (const [listen, port] of ports) {
      const server = createServer((inbound) => {
        const outbound = connect({ host: target, port });
        for (const s of [inbound, outbound]) {
          sockets.add(s);
          s.on('error', () => undefined);
          s.on('close', () => sockets.delete(s));
        }
        inbound.pipe(outbound).pipe(inbound);
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listen, host, () => resolve());
      });
    }
  };
  const listening = listenAll();
  return {
    host,
    listening,
    close: async () => {
      await listening.catch(() => undefined);
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}
