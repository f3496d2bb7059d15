// Lists in protobuf: the bounded wire reader, the Pod and Event decoders (each the same projection as
// the object's JSON), and the streaming list reader against answers cut anywhere, of the wrong Kind,
// cut short, oversized or malformed. The real API server's answers are compared in
// test/integration/protobuf-lists.test.ts.
import { describe, expect, it } from 'vitest';

import { ElementNotProtobuf, MAX_ITEM_BYTES, ProtobufListReader, type ItemDecoder } from '../../../src/cluster/encoding/protobuf-list.ts';
import { protobufStatusMessage } from '../../../src/cluster/encoding/apimachinery.ts';

import { ProtoReader, ProtobufError } from '../../../src/protobuf/reader.ts';
import { encode, entry, envelope, quantity, type Field } from '../../support/protobuf.ts';
import { projectEvent } from '../../../src/cluster/kinds/event.ts';
import { projectPod } from '../../../src/cluster/kinds/pod.ts';
import { decodeEvent, eventDecoder } from '../../../src/cluster/kinds/event-protobuf.ts';
import { POD_LIST, decodePod } from '../../../src/cluster/kinds/pod-protobuf.ts';

/** 2026-12-05T11:14:56Z in seconds since the epoch. */
const AT = Date.UTC(2026, 11, 5, 11, 14, 56) / 1000;

const POD: readonly Field[] = [
  [
    1,
    [
      [1, 'engine-1'],
      [3, 'ml'],
      [5, 'uid-1'],
      [6, '9858'],
      [8, [[1, AT]]],
      [11, entry('inferencecache.io/cache-domain', 'engine-7')],
      [11, entry('app', 'vllm')],
      [12, entry('inferencecache.io/injected-by', 'ml/be-7')],
      [12, entry('other.io/note', 'ünïcode ✓')],
      [
        17,
        [
          [1, 'kubectl'],
          [2, 'Update'],
        ],
      ],
    ],
  ],
  [
    2,
    [
      [1, [[1, 'kube-api-access']]],
      [
        20,
        [
          [1, 'sidecar'],
          [2, 'registry.test/side:v1'],
          [8, [[2, entry('memory', quantity('64Mi'))]]],
          [24, 'Always'],
        ],
      ],
      [
        2,
        [
          [1, 'main'],
          [2, 'registry.test/app:v1'],
          [
            6,
            [
              [1, 'grpc'],
              [3, 9090],
              [4, 'TCP'],
            ],
          ],
          [
            6,
            [
              [1, ''],
              [3, 8081],
              [4, 'TCP'],
            ],
          ],
          [
            7,
            [
              [1, 'SECRET'],
              [2, 'kept out'],
            ],
          ],
          [
            8,
            [
              [1, entry('cpu', quantity('2'))],
              [2, entry('cpu', quantity('100m'))],
            ],
          ],
        ],
      ],
      [8, 'engine'],
      [9, 'engine'],
      [10, ''],
      [15, [[1, 'pull-a']]],
      [15, [[1, '']]],
      [22, [[1, 'node.kubernetes.io/not-ready']]],
      [32, entry('cpu', quantity('250m'))],
      [40, [[2, entry('memory', quantity('1Gi'))]]],
    ],
  ],
  [
    3,
    [
      [1, 'Pending'],
      [
        2,
        [
          [1, 'PodScheduled'],
          [2, 'False'],
          [3, [[1, AT]]],
          [5, 'Unschedulable'],
          [6, '0/3 nodes are available'],
        ],
      ],
      [
        8,
        [
          [1, 'main'],
          [
            2,
            [
              [
                1,
                [
                  [1, 'ImagePullBackOff'],
                  [2, 'back-off pulling'],
                ],
              ],
            ],
          ],
          [6, 'registry.test/app:v1'],
        ],
      ],
      [
        10,
        [
          [1, 'sidecar'],
          [2, [[2, [[1, [[1, AT]]]]]]],
          [6, 'registry.test/side:v1'],
        ],
      ],
    ],
  ],
];

/** The same Pod as its JSON, the way an API server writes it (empty strings left out). */
const POD_JSON = {
  metadata: {
    name: 'engine-1',
    namespace: 'ml',
    uid: 'uid-1',
    resourceVersion: '9858',
    creationTimestamp: '2026-12-05T11:14:56Z',
    labels: { 'inferencecache.io/cache-domain': 'engine-7', app: 'vllm' },
    annotations: { 'inferencecache.io/injected-by': 'ml/be-7', 'other.io/note': 'ünïcode ✓' },
    managedFields: [{ manager: 'kubectl', operation: 'Update' }],
  },
  spec: {
    volumes: [{ name: 'kube-api-access' }],
    initContainers: [
      { name: 'sidecar', image: 'registry.test/side:v1', resources: { requests: { memory: '64Mi' } }, restartPolicy: 'Always' },
    ],
    containers: [
      {
        name: 'main',
        image: 'registry.test/app:v1',
        ports: [
          { name: 'grpc', containerPort: 9090, protocol: 'TCP' },
          { containerPort: 8081, protocol: 'TCP' },
        ],
        env: [{ name: 'SECRET', value: 'kept out' }],
        resources: { limits: { cpu: '2' }, requests: { cpu: '100m' } },
      },
    ],
    serviceAccountName: 'engine',
    serviceAccount: 'engine',
    imagePullSecrets: [{ name: 'pull-a' }, {}],
    tolerations: [{ key: 'node.kubernetes.io/not-ready' }],
    overhead: { cpu: '250m' },
    resources: { requests: { memory: '1Gi' } },
  },
  status: {
    phase: 'Pending',
    conditions: [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: '2026-12-05T11:14:56Z',
        reason: 'Unschedulable',
        message: '0/3 nodes are available',
      },
    ],
    containerStatuses: [
      { name: 'main', state: { waiting: { reason: 'ImagePullBackOff', message: 'back-off pulling' } }, image: 'registry.test/app:v1' },
    ],
    initContainerStatuses: [{ name: 'sidecar', state: { running: { startedAt: '2026-12-05T11:14:56Z' } }, image: 'registry.test/side:v1' }],
  },
};

const decodeWhole = (decode: ItemDecoder, fields: readonly Field[]) => {
  const bytes = encode(fields);
  return decode(bytes, 0, bytes.length);
};

describe('the wire reader refuses what is not a message, within its bounds', () => {
  it.each([
    ['a varint cut short', [0x08, 0x80], 'a varint runs past the end of its message'],
    ['a varint of eleven bytes', [0x08, ...Array<number>(10).fill(0xff), 0x01], 'a varint longer than ten bytes'],
    ['a length past the end', [0x0a, 0x05, 0x61], 'a length-delimited value runs past the end of its message'],
    ['a group', [0x0b, 0x0c], 'wire type 3, which no Kubernetes message uses'],
    ['a field numbered 0', [0x02, 0x00], 'a field numbered 0'],
    ['a fixed64 cut short', [0x09, 0x01, 0x02], 'a fixed-width value runs past the end of its message'],
  ])('%s', (_, bytes, message) => {
    const r = new ProtoReader(Uint8Array.from(bytes));
    const readAll = () => {
      for (let field = r.next(); field !== 0; field = r.next()) r.skip();
    };
    expect(readAll).toThrow(new ProtobufError(message));
  });

  it('stops at the end of its message, not of the bytes', () => {
    const bytes = encode([
      [1, 'a'],
      [2, 'b'],
    ]);
    const r = new ProtoReader(bytes, 0, 3);
    expect([r.next(), r.string(), r.next()]).toEqual([1, 'a', 0]);
  });

  it('reads negative integers in two’s complement, and strings as UTF-8', () => {
    const r = new ProtoReader(
      encode([
        [1, -5],
        [1, -(2 ** 40) - 3],
        [1, 2 ** 53 - 1],
        [1, 300],
        [2, 'naïve ✓'],
        [3, Uint8Array.from([0x61, 0xff, 0x62])],
      ]),
    );
    const numbers = [1, 2, 3, 4].map(() => (r.next(), r.number()));
    expect(numbers).toEqual([-5, -(2 ** 40) - 3, 2 ** 53 - 1, 300]);
    expect([r.next(), r.string(), r.next(), r.string()]).toEqual([2, 'naïve ✓', 3, 'a\ufffdb']);
  });

  it('takes a value of the wrong wire type as malformed', () => {
    const r = new ProtoReader(encode([[1, 7]]));
    r.next();
    expect(() => r.string()).toThrow(new ProtobufError('wire type 0 where a length-delimited value belongs'));
  });
});

describe('a Pod or an Event in protobuf projects as its JSON does', () => {
  it('a Pod with ports, requests, sidecars, pull secrets, conditions and waiting containers', () => {
    const decoded = decodeWhole(decodePod, POD);
    expect(projectPod(decoded)).toEqual(projectPod(POD_JSON));
    expect(projectPod(decoded).requests).toBeDefined();
    expect(JSON.stringify(decoded)).not.toContain('kept out');
  });

  it.each([
    ['bound to a node', [[10, 'node-a']] as const, 'Pending'],
    ['running', [] as const, 'Running'],
  ])('a Pod %s is read without what it asks of a node, which nothing reads of it', (_, binding, phase) => {
    const fields: readonly Field[] = POD.map(([n, v]): Field => {
      if (n === 2 && Array.isArray(v)) return [2, [...(v as readonly Field[]), ...binding]];
      if (n === 3 && Array.isArray(v)) return [3, [...(v as readonly Field[]), [1, phase]]];
      return [n, v];
    });
    const spec = { ...POD_JSON.spec, ...(binding.length === 0 ? {} : { nodeName: 'node-a' }) };
    const json = { ...POD_JSON, spec, status: { ...POD_JSON.status, phase } };
    const decoded = decodeWhole(decodePod, fields);
    expect(projectPod(decoded)).toEqual(projectPod(json));
    expect(projectPod(decoded).requests).toBeUndefined();
    expect(JSON.stringify(decoded)).not.toMatch(/100m|64Mi|1Gi|250m/);
  });

  it('a Pod with nothing set but its name', () => {
    expect(projectPod(decodeWhole(decodePod, [[1, [[1, 'bare']]]]))).toEqual(projectPod({ metadata: { name: 'bare' } }));
  });

  it('a map entry without a value holds the zero of its type, a key named again the last value', () => {
    const decoded = decodeWhole(decodePod, [
      [
        1,
        [
          [11, [[1, 'empty']]],
          [11, entry('k', 'first')],
          [11, entry('k', 'second')],
        ],
      ],
      [2, [[32, [[1, 'cpu']]]]],
      [3, [[1, 'Pending']]],
    ]);
    expect(decoded).toEqual({
      metadata: { labels: { empty: '', k: 'second' } },
      spec: { overhead: { cpu: '0' } },
      status: { phase: 'Pending' },
    });
  });

  it("an annotation the projection does not read is stepped over, value unread; an entry's fields read in any order", () => {
    const decoded = decodeWhole(decodePod, [
      [
        1,
        [
          [12, entry('kubectl.kubernetes.io/last-applied-configuration', '{"huge":true}')],
          [
            12,
            [
              [2, 'ml/be-1'],
              [1, 'inferencecache.io/injected-by'],
            ],
          ],
          [
            11,
            [
              [2, 'vllm'],
              [1, 'app'],
            ],
          ],
        ],
      ],
    ]);
    expect(decoded).toEqual({ metadata: { annotations: { 'inferencecache.io/injected-by': 'ml/be-1' }, labels: { app: 'vllm' } } });
  });

  const EVENT = (times: readonly Field[]): readonly Field[] => [
    [
      1,
      [
        [1, 'ev-1'],
        [3, 'ml'],
        [8, [[1, AT - 60]]],
        [17, [[1, 'kubelet']]],
      ],
    ],
    [
      2,
      [
        [1, 'Pod'],
        [2, 'ml'],
        [3, 'web-1'],
        [4, 'uid-9'],
        [5, 'v1'],
      ],
    ],
    [3, 'NoMatchingCacheBackend'],
    [4, 'no CacheBackend selects it'],
    [5, [[1, 'scale-scenario']]],
    [6, [[1, AT - 30]]],
    [8, 3],
    ...times,
  ];
  const EVENT_JSON = {
    metadata: { name: 'ev-1', namespace: 'ml', creationTimestamp: '2026-12-05T11:13:56Z' },
    involvedObject: { kind: 'Pod', namespace: 'ml', name: 'web-1', uid: 'uid-9', apiVersion: 'v1' },
    reason: 'NoMatchingCacheBackend',
    message: 'no CacheBackend selects it',
    source: { component: 'scale-scenario' },
    firstTimestamp: '2026-12-05T11:14:26Z',
    count: 3,
  };

  it('an Event a run turns down is decoded to its reason and Kind only, one it keeps whole', () => {
    const wanted = (reason: string, kind: string) => reason === 'NoMatchingCacheBackend' && kind === 'Pod';
    const decode = eventDecoder(wanted);
    const event = EVENT([[7, [[1, AT]]]]);
    expect(decodeWhole(decode, event)).toEqual(decodeWhole(decodeEvent, event));
    expect(projectEvent(decodeWhole(decode, event), wanted)).toEqual(
      projectEvent({ ...EVENT_JSON, lastTimestamp: '2026-12-05T11:14:56Z' }, wanted),
    );
    const other = event.map(([n, v]): Field => (n === 3 ? [3, 'Scheduled'] : [n, v]));
    expect(decodeWhole(decode, other)).toEqual({ reason: 'Scheduled', involvedObject: { kind: 'Pod' } });
    expect(projectEvent(decodeWhole(decode, other), wanted)).toBeUndefined();
  });

  it.each([
    [
      'its last timestamp',
      [
        [7, [[1, AT]]],
        [10, []],
      ],
      { lastTimestamp: '2026-12-05T11:14:56Z', eventTime: null },
    ],
    [
      'its event time, to the microsecond',
      [
        [7, []],
        [
          10,
          [
            [1, AT],
            [2, 123_456_789],
          ],
        ],
      ],
      { lastTimestamp: null, eventTime: '2026-12-05T11:14:56.123456Z' },
    ],
    [
      'its series',
      [
        [7, []],
        [10, [[1, AT]]],
        [
          11,
          [
            [1, 2],
            [
              2,
              [
                [1, AT + 1],
                [2, 5000],
              ],
            ],
          ],
        ],
      ],
      {
        lastTimestamp: null,
        eventTime: '2026-12-05T11:14:56.000000Z',
        series: { count: 2, lastObservedTime: '2026-12-05T11:14:57.000005Z' },
      },
    ],
    [
      'its creation, when no other time is set',
      [
        [7, []],
        [10, []],
      ],
      { lastTimestamp: null, eventTime: null },
    ],
  ] as const)('an Event timed by %s', (_, times, json) => {
    expect(projectEvent(decodeWhole(decodeEvent, EVENT(times)))).toEqual(projectEvent({ ...EVENT_JSON, ...json }));
  });
});

/** A PodList answer of `pods`, with a continue token. */
function podList(pods: readonly (readonly Field[])[], extra: readonly Field[] = []): Uint8Array {
  const list = encode([
    [
      1,
      [
        [2, '4242'],
        [3, 'next-page'],
      ],
    ],
    ...pods.map((p): Field => [2, p]),
    ...extra,
  ]);
  return envelope('PodList', list);
}

/** Reads `bytes` cut into chunks at `cuts`; what the handlers saw, in order, and how it ended. */
function read(bytes: Uint8Array, cuts: readonly number[] = []) {
  const seen: unknown[] = [];
  const reader = new ProtobufListReader(
    { list: POD_LIST, decode: decodePod },
    {
      onItem: (item) => seen.push(['item', projectPod(item).pod.name]),
      onMetadata: (metadata) => seen.push(['metadata', metadata]),
    },
  );
  let thrown: unknown;
  const bounds = [0, ...cuts, bytes.length];
  try {
    for (let i = 1; i < bounds.length; i++) reader.push(bytes.subarray(bounds[i - 1], bounds[i]));
  } catch (err) {
    thrown = err;
  }
  return { seen, thrown, end: thrown === undefined ? reader.end() : undefined };
}

const named = (name: string): readonly Field[] => [
  [
    1,
    [
      [1, name],
      [17, [[1, 'x'.repeat(300)]]],
    ],
  ],
];
const THREE = podList([named('a'), named('b'), POD]);
const WHOLE = read(THREE);

describe('the protobuf list reader', () => {
  it('hands over the metadata first, then each item, and ends with the metadata', () => {
    expect(WHOLE.seen).toEqual([
      ['metadata', { resourceVersion: '4242', continue: 'next-page' }],
      ['item', 'a'],
      ['item', 'b'],
      ['item', 'engine-1'],
    ]);
    expect(WHOLE.end).toEqual({ ok: true, end: { metadata: { resourceVersion: '4242', continue: 'next-page' } } });
  });

  it('reads the same whatever the chunks: byte by byte, and at every single cut', () => {
    expect(
      read(
        THREE,
        Array.from({ length: THREE.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(WHOLE);
    for (let cut = 1; cut < THREE.length; cut++) expect(read(THREE, [cut])).toEqual(WHOLE);
  });

  it('reads an empty list, whose items are absent', () => {
    expect(read(podList([])).end).toEqual({ ok: true, end: { metadata: { resourceVersion: '4242', continue: 'next-page' } } });
  });

  it.each([
    ['JSON', new TextEncoder().encode('{"kind":"PodList","items":[]}'), 'it is not a protobuf answer of an API server'],
    ['another Kind', envelope('ServiceList', encode([])), 'it holds a ServiceList, not a PodList'],
    ['a Status', envelope('Status', encode([[3, 'forbidden']])), 'it holds a Status, not a PodList'],
    ['an envelope without its object', Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...encode([[1, [[2, 'PodList']]]])]), 'it holds no list'],
    ['an answer cut inside an item', THREE.subarray(0, THREE.length - 5), 'it is cut short'],
    ['nothing at all', new Uint8Array(0), 'it is not a protobuf answer of an API server'],
    ['a list in an encoding', envelope('PodList', encode([]), [[3, 'gzip']]), 'its list is in an encoding the doctor does not read'],
    ['a list named twice', envelope('PodList', encode([]), [[2, encode([])]]), 'it holds its list twice'],
  ])('an answer that is no list of Pods ends as such: %s', (_, bytes, why) => {
    expect(read(bytes).end).toEqual({ ok: false, why });
  });

  it('refuses an item longer than its list, and one larger than any object, without waiting for it', () => {
    const past = envelope('PodList', Uint8Array.from([0x12, 0x0a]));
    expect(read(past).end).toEqual({ ok: false, why: 'a field runs past the end of the list' });
    const huge = Uint8Array.from([
      0x6b,
      0x38,
      0x73,
      0x00,
      ...encode([[1, [[2, 'PodList']]]]),
      0x12,
      ...encodeLength(MAX_ITEM_BYTES + 10),
      0x12,
      ...encodeLength(MAX_ITEM_BYTES + 1),
    ]);
    expect(read(huge).end).toEqual({
      ok: false,
      why: `a field of ${MAX_ITEM_BYTES + 1} bytes, larger than any object an API server sends`,
    });
  });

  it('throws an item that is not a Pod as ElementNotProtobuf, with its index, after the items before it', () => {
    const broken = podList([named('a'), [[1, Uint8Array.from([0x0a, 0x09, 0x61])]], named('c')]);
    const got = read(broken);
    expect(got.seen).toEqual([
      ['metadata', { resourceVersion: '4242', continue: 'next-page' }],
      ['item', 'a'],
    ]);
    expect(got.thrown).toBeInstanceOf(ElementNotProtobuf);
    expect(got.thrown).toMatchObject({
      index: 1,
      kind: 'Pod',
      cause: new ProtobufError('a length-delimited value runs past the end of its message'),
    });
  });

  it('reads the message of a Status in protobuf, and nothing from bytes that are not one', () => {
    expect(
      protobufStatusMessage(
        envelope(
          'Status',
          encode([
            [2, 'Failure'],
            [3, 'pods is forbidden'],
            [6, 403],
          ]),
        ),
      ),
    ).toBe('pods is forbidden');
    expect(protobufStatusMessage(envelope('Status', encode([[2, 'Failure']])))).toBeUndefined();
    expect(protobufStatusMessage(envelope('PodList', encode([])))).toBeUndefined();
    expect(protobufStatusMessage(Uint8Array.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x30]))).toBeUndefined();
  });
});

function encodeLength(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}
