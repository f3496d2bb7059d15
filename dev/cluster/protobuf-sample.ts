/**
 * Pods and Events that between them set every field the doctor decodes from a protobuf list (see the
 * declarations in `src/cluster/kinds/pod-protobuf.ts` and `event-protobuf.ts`), and many it steps over:
 * labels and annotations (the install's, others, kubectl's last-applied configuration), sidecar and
 * plain init containers, named and unnamed ports, requests and limits with extended resources, a
 * RuntimeClass's overhead, pod-level resources, pull secrets, a binding, the scheduler's verdict,
 * waiting containers of every kind, a finished pod; Events of both Event APIs, with every time field
 * the projection falls back on, a series, and Events a run turns down. `scripts/record-protobuf-goldens.ts`
 * records them from a real API server for the unit suite; `test/integration/protobuf-lists.test.ts`
 * lists them live.
 *
 * @module
 */
import { ApiException, CoreV1Api, EventsV1Api, NodeV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { bindPod, condition, coreEvent, createPodWithSpec, writePodStatus } from './objects.ts';

/** The RuntimeClass whose overhead the waiting pod carries (cluster-scoped, created once). */
export const SAMPLE_RUNTIME_CLASS = 'protobuf-sample-overhead';

/** Two seconds in 2026 the Events name exactly, so that their times are known to the second and beyond. */
const AT = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
const LATER = new Date(Date.UTC(2026, 0, 2, 3, 9, 7, 123));

/** metav1.MicroTime wants six fractional digits; the client would send a Date with three. */
function micro(d: Date, extra = '456'): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, `.$1${extra}Z`);
}

async function runtimeClass(kc: KubeConfig): Promise<void> {
  try {
    await kc.makeApiClient(NodeV1Api).createRuntimeClass({
      body: { metadata: { name: SAMPLE_RUNTIME_CLASS }, handler: 'runc', overhead: { podFixed: { cpu: '250m', memory: '120Mi' } } },
    });
  } catch (err) {
    if (!(err instanceof ApiException && err.code === 409)) throw err;
  }
}

/** The names of the sample's pods. */
export const SAMPLE_PODS = ['engine-0', 'waiting-0', 'pulling-0', 'done-0', 'plain-0'] as const;

/** Creates the sample in `namespace` (which must exist, with its default ServiceAccount). */
export async function createProtobufSample(kc: KubeConfig, namespace: string): Promise<void> {
  await runtimeClass(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const engine = await core.createNamespacedPod({
    namespace,
    body: {
      metadata: {
        name: 'engine-0',
        labels: { 'inferencecache.io/cache-domain': 'a', app: 'vllm', 'app.kubernetes.io/name': 'engine' },
        annotations: {
          'inferencecache.io/injected-by': `${namespace}/backend-a`,
          'inferencecache.io/injected-by-uid': 'c0ffee00-0000-4000-8000-000000000001',
          'other.io/note': 'ünïcode ✓',
          'kubectl.kubernetes.io/last-applied-configuration':
            '{"kind":"Pod","spec":{"containers":[{"env":[{"name":"TOKEN","value":"x"}]}]}}',
        },
      },
      spec: {
        serviceAccountName: 'default',
        imagePullSecrets: [{ name: 'pull-a' }, { name: 'pull-b' }],
        initContainers: [
          {
            name: 'sidecar',
            image: 'registry.test/side:v1',
            restartPolicy: 'Always',
            resources: { requests: { memory: '64Mi' } },
            ports: [{ name: 'metrics', containerPort: 9100 }],
          },
        ],
        containers: [
          {
            name: 'main',
            image: 'registry.test/app:v1',
            env: [{ name: 'TOKEN', value: 'not-for-the-doctor' }],
            ports: [
              { name: 'grpc', containerPort: 9090 },
              { containerPort: 8081, protocol: 'UDP' },
              { name: 'kv-events', containerPort: 5557, protocol: 'TCP' },
            ],
            resources: { requests: { cpu: '1500m', memory: '2Gi' }, limits: { cpu: '2', 'nvidia.com/gpu': '1' } },
          },
        ],
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        volumes: [{ name: 'cache', emptyDir: { sizeLimit: '1Gi' } }],
      },
    },
  });
  await bindPod(kc, namespace, 'engine-0', 'node-a');
  // An ephemeral container, as `kubectl debug` adds one, still pulling its image.
  await core.patchNamespacedPodEphemeralcontainers(
    {
      namespace,
      name: 'engine-0',
      body: { spec: { ephemeralContainers: [{ name: 'debugger', image: 'registry.test/debug:v1', targetContainerName: 'main' }] } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
  );
  await writePodStatus(kc, namespace, 'engine-0', {
    phase: 'Running',
    conditions: [condition('PodScheduled', 'True', ''), condition('Ready', 'True', '')],
    initContainerStatuses: [
      { name: 'sidecar', image: 'registry.test/side:v1', imageID: '', ready: true, restartCount: 0, started: true, state: { running: {} } },
    ],
    containerStatuses: [{ name: 'main', image: 'registry.test/app:v1', imageID: '', ready: true, restartCount: 2, state: { running: {} } }],
    ephemeralContainerStatuses: [
      {
        name: 'debugger',
        image: 'registry.test/debug:v1',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "registry.test/debug:v1"' } },
      },
    ],
  });
  await createPodWithSpec(
    kc,
    namespace,
    'waiting-0',
    { app: 'web' },
    {
      runtimeClassName: SAMPLE_RUNTIME_CLASS,
      initContainers: [{ name: 'migrate', image: 'registry.test/migrate:v1', resources: { requests: { cpu: '2', memory: '1Gi' } } }],
      containers: [
        {
          name: 'main',
          image: 'registry.test/web:v1',
          resources: { requests: { cpu: '500m', 'example.com/dongle': '1' }, limits: { 'example.com/dongle': '1', memory: '512Mi' } },
        },
        { name: 'logger', image: 'registry.test/log:v1' },
      ],
      resources: { requests: { cpu: '3', memory: '4Gi' }, limits: { cpu: '3', memory: '4Gi' } },
    },
  );
  await writePodStatus(kc, namespace, 'waiting-0', {
    phase: 'Pending',
    conditions: [condition('PodScheduled', 'False', 'Unschedulable', '0/3 nodes are available: 3 Insufficient cpu.')],
  });
  await createPodWithSpec(
    kc,
    namespace,
    'pulling-0',
    { app: 'web' },
    {
      initContainers: [{ name: 'fetch', image: 'registry.test/fetch:v2' }],
      containers: [{ name: 'main', image: 'registry.test/web:v2' }],
    },
  );
  await bindPod(kc, namespace, 'pulling-0', 'node-b');
  await writePodStatus(kc, namespace, 'pulling-0', {
    phase: 'Pending',
    initContainerStatuses: [
      {
        name: 'fetch',
        image: 'registry.test/fetch:v2',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: 'ErrImagePull', message: 'rpc error: code = NotFound desc = "registry.test/fetch:v2": not found' } },
      },
    ],
    containerStatuses: [
      {
        name: 'main',
        image: 'registry.test/web:v2',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: { reason: 'PodInitializing' } },
      },
    ],
  });
  await createPodWithSpec(
    kc,
    namespace,
    'done-0',
    { job: 'once' },
    { restartPolicy: 'Never', containers: [{ name: 'main', image: 'registry.test/job:v1' }] },
  );
  await bindPod(kc, namespace, 'done-0', 'node-a');
  await writePodStatus(kc, namespace, 'done-0', {
    phase: 'Succeeded',
    containerStatuses: [
      {
        name: 'main',
        image: 'registry.test/job:v1',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed' } },
      },
    ],
  });
  await createPodWithSpec(kc, namespace, 'plain-0', {}, { containers: [{ name: 'main', image: 'registry.test/plain:v1' }] });

  const pod = { name: 'engine-0', uid: engine.metadata?.uid ?? '' };
  await coreEvent(kc, namespace, pod, 'NoMatchingCacheBackend', 'no CacheBackend selects it', AT);
  await coreEvent(kc, namespace, { name: 'pulling-0', uid: 'u-pulling' }, 'Scheduled', 'Successfully assigned to node-b', LATER);
  // An Event with no time of its own: its creation is the last of the times the projection falls back on.
  await core.createNamespacedEvent({
    namespace,
    body: {
      metadata: { name: 'timeless' },
      involvedObject: { kind: 'CacheBackend', apiVersion: 'inferencecache.io/v1alpha1', namespace, name: 'backend-a', uid: 'u-backend' },
      reason: 'Reconciled',
      message: 'ready',
      type: 'Normal',
      source: { component: 'inferencecache-doctor-tests' },
    },
  });
  const events = kc.makeApiClient(EventsV1Api);
  await events.createNamespacedEvent({
    namespace,
    body: {
      metadata: { name: 'injected' },
      eventTime: micro(AT) as unknown as Date,
      reportingController: 'inferencecache.io/controller',
      reportingInstance: 'controller-0',
      action: 'Inject',
      regarding: { kind: 'Pod', apiVersion: 'v1', namespace, name: pod.name, uid: pod.uid },
      reason: 'InjectedByCacheBackend',
      note: 'injected by ü/✓',
      type: 'Normal',
    },
  });
  await events.createNamespacedEvent({
    namespace,
    body: {
      metadata: { name: 'repeated' },
      eventTime: micro(AT, '789') as unknown as Date,
      series: { count: 4, lastObservedTime: micro(LATER, '001') as unknown as Date },
      reportingController: 'inferencecache.io/controller',
      reportingInstance: 'controller-0',
      action: 'Match',
      regarding: { kind: 'Pod', apiVersion: 'v1', namespace, name: 'plain-0', uid: 'u-plain' },
      reason: 'NoMatchingCacheBackend',
      note: 'still no CacheBackend selects it',
      type: 'Warning',
    },
  });
}
