// The objects of files answering the gathering's paths: the namespace kubectl would give, the order an
// API server lists in, Kinds not given, Secrets by name and the failures a dump recorded.
import { describe, expect, it } from 'vitest';
import { FileApi } from '../../../src/cluster/gather/file-api.ts';
import { DUMP_READ_ERROR_ANNOTATION } from '../../../src/cluster/kinds/secret.ts';
import { READS } from '../../../src/cluster/state/reads.ts';
import { KINDS } from '../../../src/cluster/kinds/kinds.ts';
import type { ManifestObject } from '../../../src/files/manifest-documents.ts';
import { collectionPath, objectPath } from '../../../src/cluster/kinds/access.ts';

const object = (apiVersion: string, kind: string, name: string, namespace?: string, extra: object = {}): ManifestObject => ({
  apiVersion,
  kind,
  value: { apiVersion, kind, metadata: { name, ...(namespace === undefined ? {} : { namespace }) }, ...extra },
  source: 'test',
});
const signal = new AbortController().signal;
const names = async (api: FileApi, path: string) => {
  const read = await api.list(
    path,
    (raw) =>
      `${String((raw as { metadata: { namespace?: string } }).metadata.namespace ?? '')}/${String((raw as { metadata: { name: string } }).metadata.name)}`,
    signal,
  );
  return read.ok ? read.items : read.error;
};
const pods = (ns: string) => collectionPath(KINDS.pods.access, ns);

describe('FileApi', () => {
  const objects = [
    object('v1', 'Pod', 'b', 'team-a'),
    object('v1', 'Pod', 'a'),
    object('v1', 'Pod', 'a', 'team-a'),
    object('v1', 'Pod', 'z', 'a-b'),
    object('v1', 'Node', 'n2', 'ignored-ns'),
    object('v1', 'Node', 'n1'),
    object('apps/v1', 'Deployment', 'd'),
    object('inferencecache.io/v1beta1', 'CacheBackend', 'old'),
  ];

  it('gives namespaced objects without a namespace the default one, and lists in etcd key order', async () => {
    const api = new FileApi(objects, [], 'default');
    expect(await names(api, pods(''))).toEqual(['a-b/z', 'default/a', 'team-a/a', 'team-a/b']);
    expect(await names(api, pods('team-a'))).toEqual(['team-a/a', 'team-a/b']);
    expect(await names(new FileApi(objects, [], 'team-a'), pods(''))).toEqual(['a-b/z', 'team-a/a', 'team-a/b']);
    expect(await names(api, collectionPath(KINDS.nodes.access, ''))).toEqual(['ignored-ns/n1'.replace('ignored-ns', ''), 'ignored-ns/n2']);
    expect(api.notGiven).toEqual(new Set());
  });

  it('knows where each object stands, by the resource findings name it with; a namespace at its object, else its first', () => {
    const at = (line: number, template?: string) => ({ file: 'f.yaml', line, ...(template === undefined ? {} : { template }) });
    const placed = (o: ManifestObject, line: number, template?: string): ManifestObject => ({ ...o, at: at(line, template) });
    const api = new FileApi(
      [
        placed(object('v1', 'Pod', 'p', 'team-a'), 3, 'c/templates/pod.yaml'),
        placed(object('v1', 'Pod', 'q'), 9),
        placed(object('v1', 'Node', 'n1'), 14),
        placed(object('v1', 'Pod', 'r', 'team-b'), 20),
        placed(object('v1', 'Namespace', 'team-b'), 30),
        placed(object('v1', 'Pod', 'p', 'team-a'), 40),
        object('v1', 'Pod', 'from-stdin', 'team-c'),
      ],
      [],
      'default',
    );
    expect(Object.fromEntries(api.locations)).toEqual({
      'pod/team-a/p': at(40),
      'namespace/team-a': at(3, 'c/templates/pod.yaml'),
      'pod/default/q': at(9),
      'namespace/default': at(9),
      'node/n1': at(14),
      'pod/team-b/r': at(20),
      'namespace/team-b': at(30),
    });
  });

  it("gives no line to a dump's objects: a snapshot of a cluster, not a file a change is reviewed in", () => {
    const dumped: ManifestObject = { ...object('v1', 'Pod', 'p', 'team-a'), at: { file: 'dump.yaml', line: 7 }, fromDump: true };
    const given: ManifestObject = { ...object('v1', 'Pod', 'q', 'team-a'), at: { file: 'app.yaml', line: 2 } };
    expect(Object.fromEntries(new FileApi([dumped], [], 'default').locations)).toEqual({});
    expect(Object.fromEntries(new FileApi([dumped, given], [], 'default').locations)).toEqual({
      'pod/team-a/q': { file: 'app.yaml', line: 2 },
      'namespace/team-a': { file: 'app.yaml', line: 2 },
    });
  });

  it('keeps the last of an object given twice, and says so', async () => {
    const api = new FileApi(
      [object('v1', 'Pod', 'a', 'x', { spec: { n: 1 } }), object('v1', 'Pod', 'a', 'x', { spec: { n: 2 } })],
      [],
      'default',
    );
    const read = await api.list(pods(''), (raw) => (raw as { spec: { n: number } }).spec.n, signal);
    expect(read).toEqual({ ok: true, items: [2] });
    expect(api.duplicates).toEqual(['Pod x/a (test)']);
  });

  it('records a Kind asked for that the files do not hold; an empty typed list gives it', async () => {
    const api = new FileApi(objects, [{ apiVersion: 'v1', kind: 'Event' }], 'default');
    expect(await names(api, collectionPath(KINDS.events.access, ''))).toEqual([]);
    expect(await names(api, collectionPath(KINDS.cacheBackends.access, ''))).toBe('the files hold no CacheBackend objects');
    expect(api.notGiven).toEqual(new Set(['CacheBackend']));
    expect(FileApi.ignoredVersions(objects)).toEqual([
      { kind: 'CacheBackend', apiVersion: 'inferencecache.io/v1beta1', wanted: 'inferencecache.io/v1alpha1', count: 1 },
    ]);
  });

  it('answers GETs of Secrets and Namespaces: found, not found (404), the failure a dump recorded, not given', async () => {
    const secret = (ns: string, name: string) => objectPath(READS.pullSecrets.access, ns, name);
    const failed = object('v1', 'Secret', 'denied', 'x', {});
    (failed.value['metadata'] as Record<string, unknown>)['annotations'] = {
      [DUMP_READ_ERROR_ANNOTATION]: '403 secrets "denied" is forbidden',
    };
    const api = new FileApi(
      [object('v1', 'Secret', 'pull', 'x', { type: 'Opaque' }), failed],
      [{ apiVersion: 'v1', kind: 'Namespace' }],
      'default',
    );
    expect(await api.get(secret('x', 'pull'))).toMatchObject({ ok: true, body: { type: 'Opaque' } });
    expect(await api.get(secret('x', 'other'))).toMatchObject({ ok: false, status: 404 });
    expect(await api.get(secret('x', 'denied'))).toEqual({ ok: false, status: 403, error: 'secrets "denied" is forbidden' });
    expect(await api.get(objectPath(READS.scopeNamespace.access, '', 'team-a'))).toMatchObject({ ok: false, status: 404 });
    expect(api.notGiven).toEqual(new Set());
    const none = new FileApi([], [], 'default');
    expect(await none.get(secret('x', 'pull'))).toEqual({ ok: false, error: 'the files hold no Secret objects' });
    expect(none.notGiven).toEqual(new Set(['Secret']));
  });
});

describe('an object no API server would have given is refused, naming the file and the document', () => {
  const raw = (kind: string, value: Record<string, unknown>, apiVersion = 'v1'): ManifestObject => ({
    apiVersion,
    kind,
    value: { apiVersion, kind, ...value },
    source: '"f.yaml", document 3',
  });
  it.each([
    ['no metadata', raw('Pod', {}), '"f.yaml", document 3 (Pod) has no metadata'],
    ['no name', raw('Pod', { metadata: { namespace: 'ns' } }), '"f.yaml", document 3 (Pod) has no name'],
    ['only generateName', raw('Pod', { metadata: { generateName: 'p-' } }), '(Pod) has no name'],
    ['a name that is a number', raw('Node', { metadata: { name: 7 } }), '(Node) has no name'],
    ['a name with a slash', raw('Pod', { metadata: { name: 'a/b' } }), '(Pod) is named "a/b", which no API server stores'],
    ['a namespace that is a list', raw('Pod', { metadata: { name: 'p', namespace: ['a'] } }), 'p: metadata.namespace must be a string'],
    [
      'labels holding a number',
      raw('Pod', { metadata: { name: 'p', labels: { app: 3 } } }),
      'p: a field the checks read has the wrong type: a string (at key "app") is expected where the object holds the number 3',
    ],
    [
      'a container list that is a mapping',
      raw('Pod', { metadata: { name: 'p' }, spec: { containers: { name: 'c' } } }),
      'a list is expected where the object holds a mapping',
    ],
    [
      'a Pod of a dump without a namespace',
      { ...raw('Pod', { metadata: { name: 'p' } }), fromDump: true },
      '(Pod) p has no namespace, which a dump writes for every namespaced object',
    ],
    [
      'a CacheBackend whose spec is a string',
      raw('CacheBackend', { metadata: { name: 'b' }, spec: 'big' }, 'inferencecache.io/v1alpha1'),
      '(CacheBackend) b: a field the checks read has the wrong type: a mapping is expected where the object holds the string "big"',
    ],
  ])('%s', (_what, object, message) => {
    expect(() => new FileApi([object], [], 'default')).toThrow(message);
  });

  it.each([
    ['null where a field is unset', raw('Pod', { metadata: { name: 'p', creationTimestamp: null, labels: null }, status: {} })],
    ['a Kind no check reads, without a name', raw('ConfigMap', { metadata: { generateName: 'x-' } })],
    ['a manifest Pod without a namespace (it takes -n, as kubectl apply gives it)', raw('Pod', { metadata: { name: 'p' } })],
    ['a Node of a dump, which has no namespace', { ...raw('Node', { metadata: { name: 'n' } }), fromDump: true }],
    [
      'a quantity written as a number',
      raw('Pod', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: 1 } } }] } }),
    ],
  ])('accepted: %s', (_what, object) => {
    expect(() => new FileApi([object], [], 'default')).not.toThrow();
  });
});
