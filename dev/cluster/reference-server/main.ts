/**
 * Runs the reference cache-plane server as a process (for the demo and end-to-end tests):
 *
 *     node dev/cluster/reference-server/main.ts [flags]
 *
 * Prints one JSON line `{"grpcPort":N,"httpPort":N}` on stdout once both listeners are up (with
 * `"tls":true` added when the gRPC port serves TLS); logs go to stderr; SIGTERM or SIGINT stops it
 * with exit code 0. Bad flags exit 2; a listener or a TLS file that cannot be set up exits 1.
 *
 * Test support only; never shipped.
 *
 * @module
 */

import { parseArgs } from 'node:util';
import { describeError } from '../../../src/text/errors.ts';
import {
  HEALTH_MODES,
  ROUTE_NAMES,
  ROUTE_PATHS,
  startReferenceServer,
  type Faults,
  type HealthMode,
  type ReferenceServerOptions,
  type ReferenceServerTls,
  type RouteName,
} from './server.ts';

const USAGE = `usage: node dev/cluster/reference-server/main.ts [flags]
  --kubeconfig FILE               kubeconfig the TokenReviews are sent with (default: KUBECONFIG / ~/.kube/config / in-cluster)
  --host ADDR                     listening address (default 127.0.0.1)
  --grpc-port N                   gRPC health port (default 0: any free port)
  --http-port N                   controller-facing HTTP port (default 0: any free port)
  --allowed-controller-sa USER    the one username admitted (default system:serviceaccount:inference-cache-system:inference-cache-controller-manager)
  --controller-audience AUD       audience of /snapshot and /probe (default inferencecache.io/controller)
  --policy-audience AUD           audience of /policy (default inferencecache.io/policy)
  --insecure-disable-auth         no authentication (exclusive with --allowed-controller-sa)
  --health-status MODE            ${HEALTH_MODES.join(' | ')} (default SERVING)
  --missing-route PATH            answer 404 on /snapshot, /policy or /probe (repeatable)
  --token-review-timeout-ms N     TokenReview timeout (default 10000)
  --tls-cert-file FILE            serve TLS on the gRPC port with this certificate chain (PEM; needs --tls-key-file)
  --tls-key-file FILE             private key of --tls-cert-file (PEM; needs --tls-cert-file)
  --tls-client-ca-file FILE       require client certificates issued by these CAs (needs the two above)
  -h, --help`;

function fail(message: string): never {
  process.stderr.write(`reference-server: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function port(flag: string, value: string | undefined): number {
  if (value === undefined) return 0;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) fail(`${flag}: not a port: ${JSON.stringify(value)}`);
  return n;
}

function routeName(value: string): RouteName {
  const name = ROUTE_NAMES.find((r) => ROUTE_PATHS[r] === value || r === value);
  if (name === undefined) fail(`--missing-route: unknown route ${JSON.stringify(value)} (want /snapshot, /policy or /probe)`);
  return name;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: 'string' },
        host: { type: 'string' },
        'grpc-port': { type: 'string' },
        'http-port': { type: 'string' },
        'allowed-controller-sa': { type: 'string' },
        'controller-audience': { type: 'string' },
        'policy-audience': { type: 'string' },
        'insecure-disable-auth': { type: 'boolean' },
        'health-status': { type: 'string' },
        'missing-route': { type: 'string', multiple: true },
        'token-review-timeout-ms': { type: 'string' },
        'tls-cert-file': { type: 'string' },
        'tls-key-file': { type: 'string' },
        'tls-client-ca-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    fail(describeError(err));
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (values['insecure-disable-auth'] === true && values['allowed-controller-sa'] !== undefined) {
    fail('--insecure-disable-auth and --allowed-controller-sa are mutually exclusive');
  }
  const health = values['health-status'];
  if (health !== undefined && !HEALTH_MODES.includes(health as HealthMode)) fail(`--health-status: unknown ${JSON.stringify(health)}`);

  const faults: { -readonly [K in keyof Faults]: Faults[K] } = {};
  if (health !== undefined) faults.health = health as HealthMode;
  for (const r of values['missing-route'] ?? []) faults[routeName(r)] = { missing: true };

  const timeout = values['token-review-timeout-ms'];
  if (timeout !== undefined && !/^\d+$/.test(timeout)) fail(`--token-review-timeout-ms: not a number: ${JSON.stringify(timeout)}`);

  const certFile = values['tls-cert-file'];
  const keyFile = values['tls-key-file'];
  const clientCaFile = values['tls-client-ca-file'];
  if ((certFile === undefined) !== (keyFile === undefined)) fail('--tls-cert-file and --tls-key-file go together: give both or neither');
  if (clientCaFile !== undefined && certFile === undefined) fail('--tls-client-ca-file needs --tls-cert-file and --tls-key-file');
  for (const [flag, value] of [
    ['--tls-cert-file', certFile],
    ['--tls-key-file', keyFile],
    ['--tls-client-ca-file', clientCaFile],
  ] as const) {
    if (value === '') fail(`${flag}: empty file name`);
  }
  const tls: ReferenceServerTls | undefined =
    certFile === undefined || keyFile === undefined
      ? undefined
      : { certFile, keyFile, ...(clientCaFile === undefined ? {} : { clientCaFile }) };

  const opts: ReferenceServerOptions = {
    grpcPort: port('--grpc-port', values['grpc-port']),
    httpPort: port('--http-port', values['http-port']),
    faults,
    log: (line) => process.stderr.write(`reference-server: ${line}\n`),
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }),
    ...(values['allowed-controller-sa'] === undefined ? {} : { allowedControllerSA: values['allowed-controller-sa'] }),
    ...(values['controller-audience'] === undefined ? {} : { controllerAudience: values['controller-audience'] }),
    ...(values['policy-audience'] === undefined ? {} : { policyAudience: values['policy-audience'] }),
    ...(values['insecure-disable-auth'] === true ? { insecureDisableAuth: true } : {}),
    ...(timeout === undefined ? {} : { tokenReviewTimeoutMs: Number(timeout) }),
    ...(tls === undefined ? {} : { tls }),
  };

  let server;
  try {
    server = await startReferenceServer(opts);
  } catch (err) {
    process.stderr.write(`reference-server: cannot start: ${describeError(err)}\n`);
    process.exit(1);
  }
  const running = server;
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`reference-server: ${signal}, stopping\n`);
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  const ready = { grpcPort: running.grpcPort, httpPort: running.httpPort, ...(running.grpcTls ? { tls: true } : {}) };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

await main();
