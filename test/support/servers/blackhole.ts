// Loopback TCP helpers for fault tests: a listener that accepts and never says a word, and a port
// that nothing listens on.
import { createServer, type Server, type Socket } from 'node:net';

export interface Blackhole {
  readonly host: string;
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  /** Stops listening and destroys every accepted connection. */
  readonly close: () => Promise<void>;
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      const addr = server.address();
      if (addr === null || typeof addr === 'string') reject(new Error('no TCP address'));
      else resolve(addr.port);
    });
  });
}

/** A TCP listener on `host` (default 127.0.0.1) that accepts connections and never writes or closes them. */
export async function startBlackhole(host = '127.0.0.1'): Promise<Blackhole> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    // Read and ignore whatever arrives, so the peer's writes never back up.
    socket.resume();
  });
  const port = await listen(server, host);
  return {
    host,
    port,
    address: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`,
    accepted: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with no listener: bind :0, note the port, close. Connecting to it is refused. */
export async function getClosedPort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  const port = await listen(server, host);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface StalledListener {
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** Kills the helper process and drops the filler connections. */
  readonly close: () => Promise<void>;
}

/**
 * A loopback port whose TCP handshakes never complete, like a dropped-SYN (unroutable) address: a
 * child process listens with a tiny backlog and is then stopped (SIGSTOP), its accept queue is filled,
 * and from then on the kernel drops new SYNs. POSIX only (SIGSTOP).
 */
export async function startStalledListener(): Promise<StalledListener> {
  const { spawn } = await import('node:child_process');
  const { connect } = await import('node:net');
  const script =
    "const s=require('node:net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>process.stdout.write(String(s.address().port)+'\\n'))";
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const kill = (): void => void child.kill('SIGKILL');
  process.once('exit', kill);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.once('exit', () => reject(new Error('stalled listener exited early')));
  });
  child.kill('SIGSTOP');
  // Fill the accept queue (backlog + 1 on Linux, a little more elsewhere).
  const fillers = Array.from({ length: 6 }, () => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    return s;
  });
  await new Promise((r) => setTimeout(r, 150));
  return {
    port,
    address: `127.0.0.1:${port}`,
    close: () => {
      for (const s of fillers) s.destroy();
      process.off('exit', kill);
      kill();
      return Promise.resolve();
    },
  };
}
