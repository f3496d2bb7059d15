// Pods and Events listed live from the real API server in protobuf project exactly as the same lists in
// JSON do: the sample of dev/cluster/protobuf-sample.ts, which sets every field the Pod and Event
// declarations declare (its recorded answers are the unit suite's goldens, test/golden/protobuf/). Pages
// of protobuf are read by the scale test (scale.test.ts), whose tenth of the scenario lists 2,000 pods
// and Events in pages of 500.
import { KubeConfig } from '@kubernetes/client-node';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createNamespace } from '../../dev/cluster/manifests.ts';
import { SAMPLE_PODS, createProtobufSample } from '../../dev/cluster/protobuf-sample.ts';
import type { ProtobufList } from '../../src/cluster/encoding/protobuf-list.ts';
import { KINDS } from '../../src/cluster/kinds/kinds.ts';
import { projectEvent } from '../../src/cluster/kinds/event.ts';
import { projectPod } from '../../src/cluster/kinds/pod.ts';
import { KubeApi } from '../../src/cluster/transport/kube-api.ts';

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
    await createProtobufSample(kc, ns);
  });

  const both = async <T>(path: string, project: (raw: unknown) => T, protobuf: ProtobufList | undefined) => {
    if (protobuf === undefined) throw new Error('the Kind declares no protobuf reading');
    const before = api.stats.protobufPages;
    const json = await api.list(path, project, AbortSignal.timeout(60_000));
    const viaJson = api.stats.protobufPages - before;
    const binary = await api.list(path, project, AbortSignal.timeout(60_000), {}, { protobuf });
    return { json, binary, pages: { json: viaJson, protobuf: api.stats.protobufPages - before - viaJson } };
  };

  it('pods project the same, and came in protobuf when asked', async () => {
    const { json, binary, pages } = await both(`/api/v1/namespaces/${ns}/pods`, projectPod, KINDS.pods.protobuf);
    expect(pages).toEqual({ json: 0, protobuf: 1 });
    expect(json.ok && json.items.map(({ pod }) => pod.name).sort()).toEqual([...SAMPLE_PODS].sort());
    expect(binary).toEqual(json);
    const engine = json.ok ? json.items.find(({ pod }) => pod.name === 'engine-0')?.pod : undefined;
    expect(engine?.namedPorts).toEqual([
      { name: 'metrics', port: 9100, protocol: 'TCP' },
      { name: 'grpc', port: 9090, protocol: 'TCP' },
      { name: 'kv-events', port: 5557, protocol: 'TCP' },
    ]);
    expect(json.ok && json.items.find(({ pod }) => pod.name === 'waiting-0')?.requests?.overhead).toEqual({ cpu: '250m', memory: '120Mi' });
  });

  it('Events of both APIs project the same, times to the second and to the microsecond', async () => {
    const { json, binary, pages } = await both(`/api/v1/namespaces/${ns}/events`, (raw) => projectEvent(raw), KINDS.events.protobuf);
    expect(pages).toEqual({ json: 0, protobuf: 1 });
    expect(json.ok && json.items.map((e) => e?.time).sort()).toEqual([
      '2026-01-02T03:04:05.000456Z',
      '2026-01-02T03:04:05Z',
      '2026-01-02T03:09:07.123001Z',
      '2026-01-02T03:09:07Z',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    ]);
    expect(binary).toEqual(json);
  });
});
