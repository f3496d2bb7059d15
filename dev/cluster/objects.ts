/**
 * Small builders of the objects the demo, the benchmarks and the tests put into a control plane:
 * CacheBackends, tenants and policies with their status, pods, Events, nodes, secrets, accounts and
 * NetworkPolicies.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1PodSpec,
} from '@kubernetes/client-node';
import { CACHE_BACKENDS, CACHE_POLICIES, CACHE_TENANTS, FIELD_MANAGER, applyObjects, writeStatus } from './manifests.ts';

/** A unique, valid namespace name with a readable prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

/** RFC 3339 time `ms` milliseconds before now, at second precision as metav1.Time stores it. */
export function ago(ms: number): string {
  return new Date(Math.floor((Date.now() - ms) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A complete metav1.Condition (the CRD schema requires all five fields). */
export function condition(type: string, status: string, reason = 'Test', message = ''): Record<string, string> {
  return { type, status, reason, message, lastTransitionTime: ago(0) };
}

/**
 * The status a controller writes once it has reconciled a host-only CacheBackend: Ready, one engine pod,
 * a KV event seconds ago. What the tests of a wait (`--wait`, the after-deploy hooks) write mid-run.
 */
export function reconciledBackendStatus(): Record<string, unknown> {
  return {
    conditions: [condition('Ready', 'True')],
    matchedEnginePods: 1,
    firstKVEventObservedAt: ago(3_600_000),
    indexParticipation: { prefixCount: 4, lastEventAt: ago(5_000) },
  };
}

/** Creates a CacheBackend and, when given, writes its status through the status subresource. */
export async function createBackend(
  kc: KubeConfig,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  status?: Record<string, unknown>,
  annotations?: Record<string, string>,
): Promise<{ uid: string }> {
  const metadata = annotations === undefined ? { name } : { name, annotations };
  const created = (await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...CACHE_BACKENDS,
    namespace,
    body: { apiVersion: 'inferencecache.io/v1alpha1', kind: 'CacheBackend', metadata, spec: { runtime: 'VLLM', ...spec } },
    fieldManager: FIELD_MANAGER,
  })) as { metadata: { uid: string } };
  if (status !== undefined) await writeStatus(kc, { ...CACHE_BACKENDS, namespace, name }, status);
  return { uid: created.metadata.uid };
}

/** Creates a CacheTenant, optionally with a status. */
export async function createTenant(
  kc: KubeConfig,
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
  status?: Record<string, unknown>,
): Promise<void> {
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...CACHE_TENANTS,
    namespace,
    body: { apiVersion: 'inferencecache.io/v1alpha1', kind: 'CacheTenant', metadata: { name }, spec },
  });
  if (status !== undefined) await writeStatus(kc, { ...CACHE_TENANTS, namespace, name }, status);
}

/** Creates a CachePolicy with an empty spec. */
export async function createPolicy(kc: KubeConfig, namespace: string, name: string): Promise<void> {
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...CACHE_POLICIES,
    namespace,
    body: { apiVersion: 'inferencecache.io/v1alpha1', kind: 'CachePolicy', metadata: { name }, spec: {} },
  });
}

/** Creates a Pod (it stays Pending: there is no kubelet) and returns its uid. */
export async function createPod(
  kc: KubeConfig,
  namespace: string,
  name: string,
  labels: Record<string, string>,
  annotations: Record<string, string> = {},
): Promise<string> {
  const pod = await kc.makeApiClient(CoreV1Api).createNamespacedPod({
    namespace,
    body: { metadata: { name, labels, annotations }, spec: { containers: [{ name: 'engine', image: 'engine:test' }] } },
  });
  return pod.metadata?.uid ?? '';
}

/** Records an Event about a Pod through the core/v1 API. */
export async function coreEvent(
  kc: KubeConfig,
  namespace: string,
  pod: { name: string; uid: string },
  reason: string,
  message: string,
  lastTimestamp = new Date(),
): Promise<void> {
  await kc.makeApiClient(CoreV1Api).createNamespacedEvent({
    namespace,
    body: {
      metadata: { name: uniqueName(`${pod.name}-core`) },
      involvedObject: { kind: 'Pod', apiVersion: 'v1', namespace, name: pod.name, uid: pod.uid },
      reason,
      message,
      type: 'Normal',
      source: { component: 'inferencecache-doctor-tests' },
      firstTimestamp: lastTimestamp,
      lastTimestamp,
    },
  });
}

/** metav1.MicroTime wants six fractional digits; the client would send a Date with three. */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Records an Event about a Pod through the events.k8s.io/v1 API (as the controller's recorder does). */
export async function eventsV1Event(
  kc: KubeConfig,
  namespace: string,
  pod: { name: string; uid: string },
  reason: string,
  note: string,
): Promise<void> {
  await kc.makeApiClient(EventsV1Api).createNamespacedEvent({
    namespace,
    body: {
      metadata: { name: uniqueName(`${pod.name}-v1`) },
      eventTime: microTime(new Date()) as unknown as Date,
      reportingController: 'inferencecache.io/controller',
      reportingInstance: 'controller-0',
      action: 'Inject',
      regarding: { kind: 'Pod', apiVersion: 'v1', namespace, name: pod.name, uid: pod.uid },
      reason,
      note,
      type: 'Normal',
    },
  });
}

/** A Node as NodeFit sees it: allocatable, Ready (through the status subresource) and cordon. */
export interface NodeShape {
  readonly allocatable: Record<string, string>;
  readonly ready?: boolean;
  readonly unschedulable?: boolean;
}

/** Creates a Node and writes its capacity, allocatable and Ready condition through the status subresource. */
export async function createNode(kc: KubeConfig, name: string, shape: NodeShape): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNode({
    body: {
      metadata: { name, labels: { 'inferencecache-doctor-tests/node': 'true' } },
      spec: { unschedulable: shape.unschedulable ?? false },
    },
  });
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const ready = shape.ready ?? true;
  await core.patchNodeStatus(
    {
      name,
      body: {
        status: {
          capacity: { pods: '110', ...shape.allocatable },
          allocatable: { pods: '110', ...shape.allocatable },
          conditions: [
            {
              type: 'Ready',
              status: ready ? 'True' : 'False',
              reason: ready ? 'KubeletReady' : 'KubeletNotReady',
              message: ready ? 'test node is ready' : 'test node is not ready',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** Deletes Nodes, ignoring those already gone. */
export async function deleteNodes(kc: KubeConfig, names: readonly string[]): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  for (const name of names) {
    try {
      await core.deleteNode({ name });
    } catch (err) {
      if (!(err instanceof ApiException && err.code === 404)) throw err;
    }
  }
}

/** Creates a Pod with a full spec (it stays Pending: there is no kubelet) and returns its uid. */
export async function createPodWithSpec(
  kc: KubeConfig,
  namespace: string,
  name: string,
  labels: Record<string, string>,
  spec: V1PodSpec,
): Promise<string> {
  const pod = await kc.makeApiClient(CoreV1Api).createNamespacedPod({ namespace, body: { metadata: { name, labels }, spec } });
  return pod.metadata?.uid ?? '';
}

/** Binds a Pod to a Node through the binding subresource, as the scheduler does (the Node need not exist). */
export async function bindPod(kc: KubeConfig, namespace: string, name: string, nodeName: string): Promise<void> {
  await kc.makeApiClient(CoreV1Api).createNamespacedPodBinding({
    namespace,
    name,
    body: { metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
  });
}

/** Merge-patches a Pod's status through the status subresource (what the scheduler and kubelet write). */
export async function writePodStatus(kc: KubeConfig, namespace: string, name: string, status: Record<string, unknown>): Promise<void> {
  await kc
    .makeApiClient(CoreV1Api)
    .patchNamespacedPodStatus({ namespace, name, body: { status } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
}

/** Creates a Secret of `type` whose `data` holds the given plain strings (encoded here). */
export async function createSecret(
  kc: KubeConfig,
  namespace: string,
  name: string,
  type: string,
  data: Record<string, string>,
): Promise<void> {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  await kc.makeApiClient(CoreV1Api).createNamespacedSecret({ namespace, body: { metadata: { name }, type, data: encoded } });
}

/** Creates a ServiceAccount naming the given pull secrets. */
export async function createServiceAccount(
  kc: KubeConfig,
  namespace: string,
  name: string,
  imagePullSecrets: readonly string[],
): Promise<void> {
  await kc.makeApiClient(CoreV1Api).createNamespacedServiceAccount({
    namespace,
    body: { metadata: { name }, imagePullSecrets: imagePullSecrets.map((n) => ({ name: n })) },
  });
}

/** Creates a networking.k8s.io/v1 NetworkPolicy from a wire-shaped spec (`from`, not the client model's `_from`). */
export async function createNetworkPolicy(kc: KubeConfig, namespace: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await applyObjects(kc, [{ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace }, spec }]);
}
