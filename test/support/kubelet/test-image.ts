/**
 * A tiny "image" for the kubelet stand-in's own tests, run as `node test-image.ts <mode> ...`:
 *
 * - `exit <code> [message]`: prints a line, writes `message` (if given) to the termination-message
 *   file `/dev/termination-log` (the stand-in mounts it there), exits with `code`;
 * - `sleep`: prints `started` and waits until killed;
 * - `resolve <name> <grpcPort> <httpPort>`: resolves `name` through dns.lookup, dns.promises.lookup,
 *   grpc-js (a health check, and a default channel) and undici, plus two names that must not be
 *   affected, and prints the results as one JSON line;
 * - `lookup <name>...`: prints `{ name: address or error }` from dns.lookup as one JSON line;
 * - `env <file>...`: prints the environment and the content of each in-pod file as one JSON line.
 *
 * Test support only; never shipped.
 *
 * @module
 */

import * as dns from 'node:dns';
import * as fs from 'node:fs';
import { Client, credentials } from '@grpc/grpc-js';
import { request } from 'undici';
import { checkGrpcHealth } from '../../../src/probes/grpc-health.ts';
import { describeError } from '../../../src/text/errors.ts';

const [mode, ...args] = process.argv.slice(2);

function lookup(name: string): Promise<string> {
  return new Promise((resolve) =>
    dns.lookup(name, { family: 4 }, (err, address) => resolve(err ? `error ${err.code ?? err.message}` : address)),
  );
}

async function grpcChannel(target: string): Promise<string> {
  const client = new Client(target, credentials.createInsecure());
  try {
    await new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 5_000, (err) => (err ? reject(err) : resolve())));
    return 'ready';
  } catch (err) {
    return `error ${describeError(err)}`;
  } finally {
    client.close();
  }
}

async function http(url: string): Promise<string> {
  try {
    const res = await request(url, { signal: AbortSignal.timeout(5_000) });
    await res.body.dump();
    return `HTTP ${res.statusCode}`;
  } catch (err) {
    return `error ${describeError(err)}`;
  }
}

async function resolveAll(name: string, grpcPort: string, httpPort: string): Promise<void> {
  const all = await dns.promises.lookup(name, { all: true }).then(
    (list) => list.map((a) => a.address),
    (err: NodeJS.ErrnoException) => `error ${err.code ?? err.message}`,
  );
  const health = await checkGrpcHealth(`${name}:${grpcPort}`, { deadlineMs: 5_000 });
  const result = {
    lookup: await lookup(name),
    promisesLookupAll: all,
    grpcHealth: health.kind === 'status' ? health.status : `error ${health.error}`,
    grpcChannel: await grpcChannel(`${name}:${grpcPort}`),
    undici: await http(`http://${name}:${httpPort}/snapshot`),
    localhost: await lookup('localhost'),
    unknownService: await lookup('no-such-service.inference-cache-system.svc'),
  };
  console.log(JSON.stringify(result));
}

switch (mode) {
  case 'exit': {
    const code = Number.parseInt(args[0] ?? '0', 10);
    const message = args[1];
    console.log(`exiting with ${code}`);
    if (message !== undefined) {
      fs.writeFileSync('/dev/termination-log', message);
    }
    process.exitCode = code;
    break;
  }
  case 'sleep':
    console.log('started');
    setInterval(() => undefined, 60_000);
    break;
  case 'resolve':
    await resolveAll(args[0] ?? '', args[1] ?? '', args[2] ?? '');
    break;
  case 'lookup': {
    const out: Record<string, string> = {};
    for (const name of args) out[name] = await lookup(name);
    console.log(JSON.stringify(out));
    break;
  }
  case 'env': {
    const files: Record<string, string> = {};
    for (const file of args) {
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      files[file] = stat === undefined ? '(absent)' : stat.isDirectory() ? '(directory)' : fs.readFileSync(file, 'utf8');
    }
    console.log(JSON.stringify({ env: process.env, files }));
    break;
  }
  default:
    console.error(`unknown mode ${mode ?? ''}`);
    process.exitCode = 2;
}
