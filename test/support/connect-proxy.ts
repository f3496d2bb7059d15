// A plain HTTP CONNECT proxy on loopback, as a kubeconfig's proxy-url names one: it tunnels each
// CONNECT to the address asked for and counts the tunnels, so a test can tell a client went through it.
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** How many tunnels were opened since the start. */
  readonly tunnels: () => number;
  close(): Promise<void>;
}

/** Starts the proxy on a free loopback port. */
export async function startConnectProxy(): Promise<ConnectProxy> {
  let tunnels = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    res.writeHead(405).end('CONNECT only\n');
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const [host, port] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      tunnels++;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    tunnels: () => tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
