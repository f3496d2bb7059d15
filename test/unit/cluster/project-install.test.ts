import { describe, expect, it } from 'vitest';
import { projectNetworkPolicy } from '../../../src/cluster/kinds/network-policy.ts';
import { projectNode } from '../../../src/cluster/kinds/node.ts';
import { projectPullSecret } from '../../../src/cluster/kinds/secret.ts';
import { projectServiceAccount } from '../../../src/cluster/kinds/service-account.ts';
import { Interner } from '../../../src/text/interner.ts';

import { podViews } from '../../../src/cluster/state/pod-views.ts';

import { ok } from '../checks/fixtures.ts';
import { pullSecretRefs } from '../../../src/cluster/state/pull-secret-refs.ts';
import { projectPod, sharePod } from '../../../src/cluster/kinds/pod.ts';
import type { CacheBackend } from '../../../src/cluster/kinds/cache-backend.ts';

const meta = { namespace: 'ns', name: 'p', uid: 'u1' };
const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('Pod projection: the facts of NodeFit, ImagePullability and NetworkPolicyReachability', () => {
  const raw = {
    metadata: { ...meta, labels: { app: 'engine' } },
    spec: {
      serviceAccountName: 'puller',
      imagePullSecrets: [{ name: 'pull' }, { name: '' }, {}],
      overhead: { cpu: '250m' },
      resources: { requests: { memory: '2Gi' } },
      initContainers: [
        { name: 'setup', resources: { requests: { cpu: '2' } } },
        {
          name: 'sidecar',
          restartPolicy: 'Always',
          resources: { limits: { cpu: '100m' } },
          ports: [{ name: 'metrics', containerPort: 9100 }],
        },
      ],
      containers: [
        {
          name: 'engine',
          resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '4', 'nvidia.com/gpu': 1 } },
          ports: [{ name: 'snapshot', containerPort: 8081 }, { containerPort: 80 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }],
        },
      ],
    },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available' }],
      initContainerStatuses: [{ name: 'setup', image: 'setup:v1', state: { waiting: { reason: 'ErrImagePull', message: 'denied' } } }],
      containerStatuses: [
        { name: 'engine', image: 'engine:v1', state: { waiting: { reason: 'PodInitializing' } } },
        { name: 'x', state: { running: {} } },
      ],
    },
  };

  it.each([
    ['bound', { ...raw, spec: { ...raw.spec, nodeName: 'n1' } }],
    ['running', { ...raw, status: { ...raw.status, phase: 'Running' } }],
    ['of unknown phase', { ...raw, status: { ...raw.status, phase: undefined } }],
  ])('keeps no requests for a pod that is not waiting for a node: %s', (_, pod) => {
    expect(projectPod(pod).requests).toBeUndefined();
  });

  it('reads phase, binding, ServiceAccount, pull secrets, requests, the scheduler verdict, waiting containers and named ports', () => {
    expect(projectPod(raw)).toEqual({
      pod: {
        ...meta,
        labels: { app: 'engine' },
        annotations: {},
        phase: 'Pending',
        serviceAccountName: 'puller',
        imagePullSecrets: ['pull'],
        unschedulable: '0/3 nodes are available',
        waiting: [
          { container: 'setup', image: 'setup:v1', reason: 'ErrImagePull', message: 'denied' },
          { container: 'engine', image: 'engine:v1', reason: 'PodInitializing', message: '' },
        ],
        namedPorts: [
          { name: 'metrics', port: 9100, protocol: 'TCP' },
          { name: 'snapshot', port: 8081, protocol: 'TCP' },
          { name: 'dns', port: 53, protocol: 'UDP' },
        ],
      },
      requests: {
        containers: [{ cpu: '1', memory: '1Gi', 'nvidia.com/gpu': '1' }],
        initContainers: [
          { requests: { cpu: '2' }, sidecar: false },
          { requests: { cpu: '100m' }, sidecar: true },
        ],
        overhead: { cpu: '250m' },
        podLevel: { memory: '2Gi' },
      },
    });
  });
  it('the scheduler verdict only for PodScheduled=False with reason Unschedulable', () => {
    const withCondition = (c: Record<string, string>) => projectPod({ metadata: meta, status: { conditions: [c] } }).pod.unschedulable;
    expect(withCondition({ type: 'PodScheduled', status: 'False', reason: 'SchedulerError', message: 'x' })).toBeUndefined();
    expect(withCondition({ type: 'PodScheduled', status: 'True' })).toBeUndefined();
    expect(withCondition({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' })).toBe('');
  });
  it('leaves every new field out when the object has none (a pod requesting nothing has no requests)', () => {
    expect(projectPod({ metadata: meta, spec: { containers: [{ name: 'c', resources: {} }] }, status: {} })).toEqual({
      pod: { ...meta, labels: {}, annotations: {} },
    });
  });
  it('reads the deprecated spec.serviceAccount and tolerates malformed fields', () => {
    expect(
      projectPod({ metadata: meta, spec: { serviceAccount: 'old', containers: 'nope', imagePullSecrets: 'x' }, status: { phase: 3 } }),
    ).toEqual({
      pod: { ...meta, labels: {}, annotations: {}, serviceAccountName: 'old' },
    });
  });
});

describe('Node projection', () => {
  it('reads Ready, cordon and allocatable', () => {
    expect(
      projectNode({
        metadata: { name: 'gpu-1' },
        spec: { unschedulable: true },
        status: {
          allocatable: { cpu: '8', 'nvidia.com/gpu': '4' },
          conditions: [
            { type: 'MemoryPressure', status: 'False' },
            { type: 'Ready', status: 'True' },
          ],
        },
      }),
    ).toEqual({ name: 'gpu-1', ready: true, unschedulable: true, allocatable: { cpu: '8', 'nvidia.com/gpu': '4' } });
  });
  it('a node without a Ready=True condition is not ready', () => {
    expect(projectNode({ metadata: { name: 'n' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } })).toEqual({
      name: 'n',
      ready: false,
      unschedulable: false,
      allocatable: {},
    });
    expect(projectNode(null)).toEqual({ name: '', ready: false, unschedulable: false, allocatable: {} });
  });
});

describe('pull secret projection: type and shape, never content', () => {
  const secret = (type: string | undefined, data: Record<string, string> | undefined) =>
    projectPullSecret({ metadata: meta, ...(type === undefined ? {} : { type }), ...(data === undefined ? {} : { data }) });
  const json = 'kubernetes.io/dockerconfigjson';
  it.each([
    [
      'valid',
      json,
      { '.dockerconfigjson': b64('{"auths":{"a.test":{"auth":"eDp5"},"b.test":{}}}') },
      { kind: 'credentials', key: '.dockerconfigjson', registries: 2 },
    ],
    ['no auths', json, { '.dockerconfigjson': b64('{"credsStore":"desktop"}') }, { kind: 'no-auths', key: '.dockerconfigjson' }],
    ['auths not an object', json, { '.dockerconfigjson': b64('{"auths":[]}') }, { kind: 'no-auths', key: '.dockerconfigjson' }],
    ['not JSON', json, { '.dockerconfigjson': b64('{"auths":') }, { kind: 'not-json', key: '.dockerconfigjson' }],
    ['not base64', json, { '.dockerconfigjson': '%%%' }, { kind: 'not-json', key: '.dockerconfigjson' }],
    ['JSON array', json, { '.dockerconfigjson': b64('[1]') }, { kind: 'not-object', key: '.dockerconfigjson' }],
    ['no key', json, { other: b64('{}') }, { kind: 'no-key', key: '.dockerconfigjson' }],
    ['no data', json, undefined, { kind: 'no-key', key: '.dockerconfigjson' }],
    [
      'legacy dockercfg',
      'kubernetes.io/dockercfg',
      { '.dockercfg': b64('{"a.test":{"auth":"eDp5"}}') },
      { kind: 'credentials', key: '.dockercfg', registries: 1 },
    ],
    ['Opaque', 'Opaque', { '.dockerconfigjson': b64('{"auths":{}}') }, { kind: 'not-applicable' }],
  ])('%s', (_name, type, data, content) => {
    expect(secret(type, data)).toEqual({ kind: 'found', type, content });
  });
  it('a secret without a type is Opaque', () => {
    expect(secret(undefined, {})).toEqual({ kind: 'found', type: 'Opaque', content: { kind: 'not-applicable' } });
  });
});

describe('ServiceAccount projection', () => {
  it('keeps the pull secret names', () => {
    expect(
      projectServiceAccount({
        metadata: meta,
        imagePullSecrets: [{ name: 'a' }, { name: 'b' }, { nope: 1 }],
        secrets: [{ name: 'token' }],
      }),
    ).toEqual({ ...meta, imagePullSecrets: ['a', 'b'] });
  });
});

describe('NetworkPolicy projection', () => {
  it('reads the pod selector, types and ingress rules with every peer and port form', () => {
    expect(
      projectNetworkPolicy({
        metadata: meta,
        spec: {
          podSelector: { matchLabels: { app: 'server' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
          policyTypes: ['Ingress', 'Egress'],
          ingress: [
            {},
            {
              from: [
                { podSelector: {} },
                { namespaceSelector: { matchLabels: { team: 'ops' } }, podSelector: { matchLabels: { app: 'doctor' } } },
                { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } },
              ],
              ports: [{ port: 8081 }, { protocol: 'TCP', port: 'snapshot' }, { protocol: 'UDP' }, { port: 8000, endPort: 8100 }],
            },
          ],
          egress: [{}],
        },
      }),
    ).toEqual({
      ...meta,
      podSelector: { matchLabels: { app: 'server' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { from: [], ports: [] },
        {
          from: [
            { podSelector: { matchLabels: {}, matchExpressions: [] } },
            {
              podSelector: { matchLabels: { app: 'doctor' }, matchExpressions: [] },
              namespaceSelector: { matchLabels: { team: 'ops' }, matchExpressions: [] },
            },
            { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } },
          ],
          ports: [
            { protocol: 'TCP', port: 8081 },
            { protocol: 'TCP', port: 'snapshot' },
            { protocol: 'UDP' },
            { protocol: 'TCP', port: 8000, endPort: 8100 },
          ],
        },
      ],
    });
  });
  it('absent policyTypes stay absent (Ingress implied) and an absent podSelector selects everything', () => {
    expect(projectNetworkPolicy({ metadata: meta, spec: {} })).toEqual({
      ...meta,
      podSelector: { matchLabels: {}, matchExpressions: [] },
      ingress: [],
    });
  });
});

describe('install pods and their pull secrets', () => {
  const pod = (name: string, labels: Record<string, string>, spec: Record<string, unknown> = {}, phase = 'Running') =>
    projectPod({ metadata: { namespace: 'ns', name, uid: name, labels }, spec, status: { phase } }).pod;
  const install = { 'app.kubernetes.io/name': 'inference-cache' };
  const pods = [
    pod('server', { ...install, 'app.kubernetes.io/component': 'server' }, { imagePullSecrets: [{ name: 'shared' }] }),
    pod('controller', { ...install, 'app.kubernetes.io/component': 'controller' }, { serviceAccountName: 'ctrl' }),
    pod(
      'redis',
      { ...install, 'app.kubernetes.io/component': 'redis' },
      { imagePullSecrets: [{ name: 'shared' }, { name: 'redis-pull' }] },
    ),
    pod('engine', { app: 'engine' }, { imagePullSecrets: [{ name: 'engine-pull' }] }),
    pod('web', { app: 'web' }, { imagePullSecrets: [{ name: 'web-pull' }] }),
    pod('done', { ...install }, { imagePullSecrets: [{ name: 'old-pull' }] }, 'Succeeded'),
  ];
  const backends = [{ namespace: 'ns', name: 'be', uid: 'b', matchLabels: { app: 'engine' }, conditions: [] }];
  const installPodsOf = (known: readonly CacheBackend[]) => {
    const views = podViews(ok(pods.map((pod) => ({ pod }))), { kind: 'known', items: known }, new Set(['installPods'] as const));
    return views.installPods?.ok === true ? views.installPods.items : [];
  };
  it('classifies server, controller, managed workloads and engine pods; ignores the rest', () => {
    expect(installPodsOf(backends).map((p) => [p.pod.name, p.role])).toEqual([
      ['server', 'server'],
      ['controller', 'controller'],
      ['redis', 'workload'],
      ['engine', 'engine'],
      ['done', 'workload'],
    ]);
    expect(installPodsOf([]).map((p) => p.pod.name)).not.toContain('engine');
  });
  it('names each pull secret once, with its referrers, skipping finished pods', () => {
    const sas = [{ namespace: 'ns', name: 'ctrl', uid: 'c', imagePullSecrets: ['shared', 'ctrl-pull'] }];
    expect(pullSecretRefs(installPodsOf(backends), sas)).toEqual([
      { namespace: 'ns', name: 'shared', referrers: ['pod/ns/server', 'serviceaccount/ns/ctrl', 'pod/ns/redis'] },
      { namespace: 'ns', name: 'ctrl-pull', referrers: ['serviceaccount/ns/ctrl'] },
      { namespace: 'ns', name: 'redis-pull', referrers: ['pod/ns/redis'] },
      { namespace: 'ns', name: 'engine-pull', referrers: ['pod/ns/engine'] },
    ]);
  });
});

describe('sharePod', () => {
  const raw = (name: string, phase?: string) => ({
    metadata: {
      namespace: 'ns',
      name,
      uid: name,
      labels: { app: 'engine', 'inferencecache.io/cache-domain': 'd' },
      annotations: { 'inferencecache.io/injected-by': 'ns/be', other: 'x' },
    },
    spec: { nodeName: 'node-1', serviceAccountName: 'sa', containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
    status: phase === undefined ? {} : { phase },
  });

  it('changes nothing a check reads', () => {
    for (const read of [
      projectPod(raw('a', 'Running')),
      projectPod(raw('b')),
      projectPod({ metadata: meta, spec: {}, status: { phase: 'Pending' } }),
    ]) {
      expect(sharePod(read, new Interner())).toEqual(read);
    }
  });

  it('gives pods of equal labels and annotations one map of each, and one copy of their node name', () => {
    const interner = new Interner();
    const [a, b] = ['a', 'b'].map((name) => sharePod(projectPod(raw(name, 'Running')), interner).pod);
    expect(a?.labels).toBe(b?.labels);
    expect(a?.annotations).toBe(b?.annotations);
    expect(a?.name).not.toBe(b?.name);
  });

  it('keeps the requests of a pod waiting for a node', () => {
    const read = projectPod({
      ...raw('w'),
      spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
      status: { phase: 'Pending' },
    });
    expect(read.requests).toBeDefined();
    expect(sharePod(read, new Interner()).requests).toBe(read.requests);
  });
});
