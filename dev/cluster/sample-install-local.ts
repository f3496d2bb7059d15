// The sample install on a control plane without a node, for the demo and the integration suite: the
// CRDs, the install's manifests, the reference cache-plane server as a local process authenticating with
// TokenReview as the server's own ServiceAccount, and one workload namespace in which every check the
// doctor runs comes out OK. (On the real node the same install runs as pods: node/sample-install-pods.ts.)
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { ago, bindPod, condition, createBackend, createPod, createPolicy, createTenant } from './objects.ts';
import { INSTALL_NAMESPACE, applyObjects, createNamespace, installCrds, loadManifests } from './manifests.ts';
import { kubeconfigWithToken, requestToken } from './identity.ts';
import {
  DEFAULT_CONTROLLER_AUDIENCE,
  startReferenceServer,
  type ReferenceServer,
  type ReferenceServerOptions,
} from './reference-server/server.ts';

/** The ServiceAccount the server admits on `/snapshot`; the controller runs as it. */
export const CONTROLLER_SERVICE_ACCOUNT = 'inference-cache-controller-manager';
/** The ServiceAccount the server itself runs as; the install fixtures let it create TokenReviews. */
export const SERVER_SERVICE_ACCOUNT = 'inference-cache-server';
/** The doctor's HTTP port is fixed, so the reference server's HTTP listener must use it. */
export const SNAPSHOT_PORT = 8081;

/** Where the sample install lives and how to reach it. */
export interface SampleInstallOptions {
  /** API server URL and the CA that signs it, for the reference server's TokenReview client. */
  readonly server: string;
  readonly caFile: string;
  /** A directory for the token file and the server's kubeconfig. */
  readonly dir: string;
  /** Loopback address of the reference server; default: a random one in 127.0.0.0/8. */
  readonly host?: string;
  /** gRPC port of the reference server; default a free one. 9090 when the doctor discovers the server by its Service. */
  readonly grpcPort?: number;
  /** The node the healthy engine pod is bound to (kube-controller-manager deletes pods bound to a node that does not exist). */
  readonly nodeName?: string;
  /** The namespace holding the healthy workload objects. */
  readonly workloadNamespace?: string;
  readonly log?: (line: string) => void;
  /** Serve TLS on the gRPC port, as upstream's TLS overlay does (files as its Secret holds them). */
  readonly grpcTls?: ReferenceServerOptions['tls'];
}

/** A running sample install. */
export interface SampleInstall {
  readonly server: ReferenceServer;
  /** `--server-endpoint` value: the reference server's host and gRPC port. */
  readonly serverEndpoint: string;
  /** A controller-audience TokenRequest token of the controller's ServiceAccount (what the Helm test mounts). */
  readonly tokenFile: string;
  readonly workloadNamespace: string;
  /** The stand-in for the managed Redis the healthy backend publishes. */
  readonly remoteEndpoint: string;
  stop(): Promise<void>;
}

/** A TCP listener that accepts connections and closes them: a remote tier that is up. */
async function listenTcp(host: string): Promise<Server> {
  const srv = createServer((socket) => socket.end());
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, host, () => resolve());
  });
  return srv;
}

function randomLoopback(): string {
  return `127.0.${1 + Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
}

/** Starts the reference server on `opts.host` (or a free random loopback address) with HTTP on :8081. */
async function startServerOnFreeLoopback(opts: SampleInstallOptions, kubeconfig: string): Promise<ReferenceServer> {
  const { host, grpcPort = 0, log, grpcTls } = opts;
  for (let attempt = 0; ; attempt++) {
    try {
      return await startReferenceServer({
        host: host ?? randomLoopback(),
        grpcPort,
        httpPort: SNAPSHOT_PORT,
        kubeconfig,
        ...(log === undefined ? {} : { log }),
        ...(grpcTls === undefined ? {} : { tls: grpcTls }),
      });
    } catch (err) {
      if (host !== undefined || attempt >= 5 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}

/** The healthy workload: a managed backend with a reachable endpoint and an injected engine pod, a tenant within quota, one policy. */
/**
 * The healthy backend's status as its controller writes it, the last KV event 5 s ago. A suite that runs
 * for minutes writes it again before a run that must find the index fresh (CB004 after 2 minutes).
 */
export function healthyBackendStatus(remoteEndpoint: string): Record<string, unknown> {
  return {
    conditions: [condition('Ready', 'True', 'Serving', 'index live')],
    matchedEnginePods: 1,
    firstKVEventObservedAt: ago(3_600_000),
    indexParticipation: { prefixCount: 42, lastEventAt: ago(5_000) },
    remoteStorage: { endpoint: remoteEndpoint },
  };
}

/** `nodeName`: the node the engine pod is bound to; undefined where a real scheduler binds it. */
export async function createHealthyWorkload(
  kc: KubeConfig,
  namespace: string,
  remoteEndpoint: string,
  nodeName: string | undefined,
): Promise<void> {
  await createNamespace(kc, namespace);
  const { uid } = await createBackend(
    kc,
    namespace,
    'chat',
    {
      type: 'LMCache',
      engineSelector: { matchLabels: { app: 'chat-engine' } },
      remoteStorage: { provider: 'Redis', ownership: 'Managed' },
    },
    healthyBackendStatus(remoteEndpoint),
  );
  await createPod(
    kc,
    namespace,
    'chat-engine-0',
    { app: 'chat-engine' },
    {
      'inferencecache.io/injected-by': `${namespace}/chat`,
      'inferencecache.io/injected-by-uid': uid,
    },
  );
  // A healthy install's engine pod has been scheduled (NodeFit judges only pods still waiting for a node).
  if (nodeName !== undefined) await bindPod(kc, namespace, 'chat-engine-0', nodeName);
  await createTenant(
    kc,
    namespace,
    'team-chat',
    { tenantID: 'team-chat', quota: { maxIndexEntries: 100_000 } },
    {
      indexEntries: 1_200,
      conditions: [condition('QuotaExceeded', 'False', 'WithinQuota')],
    },
  );
  await createPolicy(kc, namespace, 'default');
}

/**
 * Applies the CRDs and the install fixtures, creates the healthy workload, starts the reference server
 * (TokenReviews sent as the server's ServiceAccount) and writes the controller token file.
 */
export async function startSampleInstall(kc: KubeConfig, opts: SampleInstallOptions): Promise<SampleInstall> {
  const workloadNamespace = opts.workloadNamespace ?? 'demo-healthy';
  mkdirSync(opts.dir, { recursive: true });
  await installCrds(kc);
  await applyObjects(kc, loadManifests('install'));

  const serverToken = await requestToken(kc, INSTALL_NAMESPACE, SERVER_SERVICE_ACCOUNT, undefined, 24 * 3600);
  const server = await startServerOnFreeLoopback(opts, kubeconfigWithToken(opts.server, opts.caFile, serverToken));
  const redis = await listenTcp(server.host);
  const remoteEndpoint = `${server.host}:${(redis.address() as { port: number }).port}`;
  try {
    await createHealthyWorkload(kc, workloadNamespace, remoteEndpoint, opts.nodeName ?? 'sample-node');
    const tokenFile = join(opts.dir, 'controller-token');
    writeFileSync(tokenFile, await requestToken(kc, INSTALL_NAMESPACE, CONTROLLER_SERVICE_ACCOUNT, [DEFAULT_CONTROLLER_AUDIENCE], 3600), {
      mode: 0o600,
    });
    return {
      server,
      serverEndpoint: server.grpcTarget,
      tokenFile,
      workloadNamespace,
      remoteEndpoint,
      async stop() {
        await server.stop();
        await new Promise<void>((r) => redis.close(() => r()));
      },
    };
  } catch (err) {
    await server.stop();
    redis.close();
    throw err;
  }
}
