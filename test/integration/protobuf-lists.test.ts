// Pods and Events listed from the real API server in protobuf project exactly as the same lists in
// JSON do: every field a check reads (labels, annotations, ports, requests of containers and sidecars,
// pull secrets, service account, node, phase, the scheduler's verdict, waiting containers; an Event's
// object, reason, message and times of both Event APIs). Pages of protobuf are read by the scale test
// (scale.test.ts), whose tenth of the scenario lists 2,000 pods and Events in pages of 500.
import { KubeConfig } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeApi } from '../../src/cluster/transport/kube-api.ts';

import { KINDS } from '../../src/cluster/kinds/kinds.ts';
import { bindPod, condition, coreEvent, createPodWithSpec, eventsV1Event, writePodStatus } from '../../dev/cluster/objects.ts';
import { createNamespace } from '../../dev/cluster/manifests.ts';
import { projectEvent } from '../../src/cluster/kinds/event.ts';
import { projectPod } from '../../src/cluster/kinds/pod.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';

describe.skipIf(!kubeconfig)(`lists in protobuf and in JSON against the real API server${skipReason}`, () => {
  const ns = `protobuf-${Date.now().toString(36)}`;
  let api: KubeApi;

  beforeAll(async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    api = new KubeApi(kc);
    await createNamespace(kc, ns);
    const engine = await createPodWithSpec(
      kc,
      ns,
      'engine-0',
      { 'inferencecache.io/cache-domain': 'a', app: 'vllm' },
      {
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
            ],
            resources: { requests: { cpu: '1500m', memory: '2Gi' }, limits: { cpu: '2', 'nvidia.com/gpu': '1' } },
          },
        ],
      },
    );
    await createPodWithSpec(
      kc,
      ns,
      'waiting-0',
      { app: 'web' },
      {
        containers: [
          {
            name: 'main',
            image: 'registry.test/web:v1',
            resources: { requests: { cpu: '500m', 'example.com/dongle': '1' }, limits: { 'example.com/dongle': '1' } },
          },
        ],
      },
    );
    await writePodStatus(kc, ns, 'waiting-0', {
      phase: 'Pending',
      conditions: [condition('PodScheduled', 'False', 'Unschedulable', '0/3 nodes are available: 3 Insufficient cpu.')],
    });
    await createPodWithSpec(kc, ns, 'pulling-0', { app: 'web' }, { containers: [{ name: 'main', image: 'registry.test/web:v2' }] });
    await bindPod(kc, ns, 'pulling-0', 'node-a');
    await writePodStatus(kc, ns, 'pulling-0', {
      phase: 'Pending',
      containerStatuses: [
        {
          name: 'main',
          image: 'registry.test/web:v2',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "registry.test/web:v2"' } },
        },
      ],
    });
    await coreEvent(
      kc,
      ns,
      { name: 'engine-0', uid: engine },
      'NoMatchingCacheBackend',
      'no CacheBackend selects it',
      new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
    );
    await eventsV1Event(kc, ns, { name: 'engine-0', uid: engine }, 'CacheInjected', 'injected by ü/✓');
  });

  const both = async <T>(path: string, project: (raw: unknown) => T, protobuf: (typeof KINDS)['pods' | 'events']['protobuf']) => {
    const before = api.stats.protobufPages;
    const json = await api.list(path, project, AbortSignal.timeout(60_000));
    const viaJson = api.stats.protobufPages - before;
    const binary = await api.list(path, project, AbortSignal.timeout(60_000), {}, protobuf === undefined ? {} : { protobuf });
    return { json, binary, pages: { json: viaJson, protobuf: api.stats.protobufPages - before - viaJson } };
  };

  it('pods project the same, and came in protobuf when asked', async () => {
    const { json, binary, pages } = await both(`/api/v1/namespaces/${ns}/pods`, projectPod, KINDS.pods.protobuf);
    expect(pages).toEqual({ json: 0, protobuf: 1 });
    expect(json.ok && json.items).toHaveLength(3);
    expect(binary).toEqual(json);
    const engine = json.ok ? json.items.find(({ pod }) => pod.name === 'engine-0')?.pod : undefined;
    expect(engine?.namedPorts).toEqual([
      { name: 'metrics', port: 9100, protocol: 'TCP' },
      { name: 'grpc', port: 9090, protocol: 'TCP' },
    ]);
    expect(json.ok && json.items.find(({ pod }) => pod.name === 'waiting-0')?.requests).toBeDefined();
  });

  it('Events of both APIs project the same, times to the second and to the microsecond', async () => {
    const { json, binary, pages } = await both(`/api/v1/namespaces/${ns}/events`, (raw) => projectEvent(raw), KINDS.events.protobuf);
    expect(pages).toEqual({ json: 0, protobuf: 1 });
    expect(json.ok && json.items.map((e) => e?.time)).toEqual([
      expect.stringMatching(/^2026-01-02T03:04:05Z$|^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      expect.stringMatching(/^2026-01-02T03:04:05Z$|^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    ]);
    expect(binary).toEqual(json);
  });
});
