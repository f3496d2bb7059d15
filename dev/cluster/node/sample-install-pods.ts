/**
 * The sample install as pods on the real node: the CRDs and install fixtures, the reference cache-plane
 * server as a Deployment of its image behind the `inference-cache-server` Service and the upstream
 * NetworkPolicy on `:8081`, and the healthy workload (its engine pod runs on the node; its managed
 * remote tier is a pod behind a Service, reached by its DNS name).
 *
 * @module
 */
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { pollUntil } from '../../poll.ts';
import { INSTALL_NAMESPACE, applyObjects, deleteObjects, installCrds, loadManifests, type KubeObject } from '../manifests.ts';
import { SERVER_SERVICE_ACCOUNT, SNAPSHOT_PORT, createHealthyWorkload } from '../sample-install-local.ts';
import { IMAGES } from '../images.ts';

/** The namespace of the healthy workload. */
export const WORKLOAD_NAMESPACE = 'demo-healthy';
/** The server pods' labels (the Service's and the NetworkPolicy's selector). */
export const SERVER_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'server' };
/** Where the managed remote tier of the healthy backend answers: a Service name, resolved by CoreDNS. */
export const REMOTE_ENDPOINT = `chat-redis.${WORKLOAD_NAMESPACE}.svc:6379`;

const NONROOT = {
  runAsNonRoot: true,
  runAsUser: 65532,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

/** The reference server's arguments in its Deployment, as the sample install deploys it. */
const SERVER_ARGS = ['--host', '0.0.0.0', '--grpc-port', '9090', '--http-port', String(SNAPSHOT_PORT)];

/** A one-replica Deployment of the reference-server image. */
function referenceServerDeployment(
  name: string,
  namespace: string,
  labels: Record<string, string>,
  args: string[],
  ports: { name: string; containerPort: number }[],
  serviceAccountName?: string,
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          ...(serviceAccountName === undefined ? { automountServiceAccountToken: false } : { serviceAccountName }),
          containers: [
            {
              name: 'server',
              image: IMAGES.referenceServer,
              imagePullPolicy: 'Never',
              args,
              ports,
              securityContext: NONROOT,
              readinessProbe: { tcpSocket: { port: ports[0]?.containerPort ?? 0 }, periodSeconds: 2 },
            },
          ],
        },
      },
    },
  };
}

/** Applies everything and waits until the server, the remote tier and the engine pod run. */
export async function deploySampleInstall(kc: KubeConfig): Promise<void> {
  await installCrds(kc);
  // The install's objects, the server's NetworkPolicy among them (test/unit/chart/netpol.test.ts keeps
  // it equal to upstream's).
  await applyObjects(kc, loadManifests('install'));
  await applyObjects(kc, [
    referenceServerDeployment(
      'inference-cache-server',
      INSTALL_NAMESPACE,
      SERVER_LABELS,
      SERVER_ARGS,
      [
        { name: 'grpc', containerPort: 9090 },
        { name: 'snapshot', containerPort: SNAPSHOT_PORT },
      ],
      SERVER_SERVICE_ACCOUNT,
    ),
  ]);
  // kube-scheduler binds the engine pod.
  await createHealthyWorkload(kc, WORKLOAD_NAMESPACE, REMOTE_ENDPOINT, undefined);
  // The remote tier only has to accept connections: the reference server's gRPC listener does.
  await applyObjects(kc, [
    referenceServerDeployment(
      'chat-redis',
      WORKLOAD_NAMESPACE,
      { app: 'chat-redis' },
      ['--insecure-disable-auth', '--host', '0.0.0.0', '--grpc-port', '6379', '--http-port', '6380'],
      [{ name: 'redis', containerPort: 6379 }],
    ),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'chat-redis', namespace: WORKLOAD_NAMESPACE },
      spec: { selector: { app: 'chat-redis' }, ports: [{ name: 'redis', port: 6379, targetPort: 'redis' }] },
    },
  ]);
  await waitForPodsReady(kc, [
    [INSTALL_NAMESPACE, 'app.kubernetes.io/component=server'],
    [WORKLOAD_NAMESPACE, 'app=chat-redis'],
    [WORKLOAD_NAMESPACE, 'app=chat-engine'],
  ]);
}

/** Whether some pod of the list is Ready. */
function someReady(pods: readonly V1Pod[]): boolean {
  return pods.some((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
}

/** What the pods of a list are doing, for a wait that ran out. */
function describePods(pods: readonly V1Pod[]): string {
  const seen = pods.map(
    (p) => `${p.metadata?.name ?? '?'}: ${p.status?.phase ?? '?'} ${JSON.stringify(p.status?.containerStatuses?.[0]?.state ?? {})}`,
  );
  return seen.join('; ') || 'no pods';
}

/** Waits until some pod of each (namespace, selector) is Ready. */
export async function waitForPodsReady(
  kc: KubeConfig,
  selectors: readonly (readonly [string, string])[],
  timeoutMs = 120_000,
): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  for (const [namespace, labelSelector] of selectors) {
    await pollUntil(`a Ready pod for ${labelSelector} in ${namespace}`, { timeoutMs, intervalMs: 500 }, async () => {
      const pods = await core.listNamespacedPod({ namespace, labelSelector });
      return someReady(pods.items) || describePods(pods.items);
    });
  }
}

/** The Secret cert-manager writes for the server's TLS overlay (tls.crt, tls.key, ca.crt). */
export const SERVER_TLS_SECRET = 'inference-cache-server-tls';
/** Where upstream's overlay mounts that Secret in the server, and the flags that point at it. */
const SERVER_TLS_DIR = '/var/run/secrets/tls';
const SERVER_TLS_ARGS = [`--tls-cert-file=${SERVER_TLS_DIR}/tls.crt`, `--tls-key-file=${SERVER_TLS_DIR}/tls.key`];

/** The pod-template annotation that makes each roll-out a new pod, and tells it from the previous one. */
const ROLLOUT = 'kubectl.kubernetes.io/restartedAt';

/** How the server runs: its health answer, and whether its gRPC port serves TLS from the Secret. */
export interface ServerShape {
  readonly health?: 'SERVING' | 'NOT_SERVING';
  readonly tls?: boolean;
}

/** Writes the TLS Secret as cert-manager would, from certificate files made by the tests. */
export async function writeServerTlsSecret(kc: KubeConfig, files: { certPem: string; keyPem: string; caPem: string }): Promise<void> {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  await applyObjects(kc, [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: SERVER_TLS_SECRET, namespace: INSTALL_NAMESPACE },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(files.certPem), 'tls.key': b64(files.keyPem), 'ca.crt': b64(files.caPem) },
    },
  ]);
}

/** Deletes the TLS Secret (a running server keeps the files it mounted). */
export async function deleteServerTlsSecret(kc: KubeConfig): Promise<void> {
  await deleteObjects(kc, [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: SERVER_TLS_SECRET, namespace: INSTALL_NAMESPACE } }]);
}

/**
 * Rolls the reference server out in `shape` (the default restores the install: SERVING, plaintext)
 * as a new pod, and waits until only that pod runs, Ready. With `tls` its Deployment gets what upstream's TLS
 * overlay adds: the two flags and the Secret mounted read-only. Its readiness is a TCP check, so a
 * NOT_SERVING or TLS server is Ready, as a real one would be.
 */
export async function rollServer(kc: KubeConfig, shape: ServerShape = {}): Promise<void> {
  const { health = 'SERVING', tls = false } = shape;
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const name = 'inference-cache-server';
  const deployment = await apps.readNamespacedDeployment({ name, namespace: INSTALL_NAMESPACE });
  const spec = deployment.spec?.template.spec;
  const container = spec?.containers[0];
  if (spec === undefined || container === undefined) throw new Error('the server Deployment has no container');
  const args = [...SERVER_ARGS, ...(health === 'SERVING' ? [] : ['--health-status', health]), ...(tls ? SERVER_TLS_ARGS : [])];
  container.args = args;
  // A new pod every time, as `kubectl rollout restart` makes one: the reference server reads its
  // certificate when it starts, so a rewritten Secret needs a new pod even when the spec is the same.
  const rollout = new Date().toISOString();
  const template = deployment.spec?.template;
  if (template !== undefined)
    template.metadata = { ...template.metadata, annotations: { ...template.metadata?.annotations, [ROLLOUT]: rollout } };
  container.volumeMounts = tls ? [{ name: 'grpc-tls', mountPath: SERVER_TLS_DIR, readOnly: true }] : [];
  spec.volumes = tls ? [{ name: 'grpc-tls', secret: { secretName: SERVER_TLS_SECRET } }] : [];
  await apps.replaceNamespacedDeployment({ name, namespace: INSTALL_NAMESPACE, body: deployment });
  await pollUntil(`the server rolled out with ${args.join(' ')}`, { timeoutMs: 120_000, intervalMs: 500 }, async () => {
    const pods = await core.listNamespacedPod({ namespace: INSTALL_NAMESPACE, labelSelector: 'app.kubernetes.io/component=server' });
    const only = pods.items.length === 1 ? pods.items : [];
    return (someReady(only) && only[0]?.metadata?.annotations?.[ROLLOUT] === rollout) || describePods(pods.items);
  });
}

/** Rolls the reference server out with `--health-status mode` (SERVING restores the install). */
export async function setServerHealth(kc: KubeConfig, mode: 'SERVING' | 'NOT_SERVING'): Promise<void> {
  await rollServer(kc, { health: mode });
}
