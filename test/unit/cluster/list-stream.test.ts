// The streaming list splitter against JSON.parse: for random list answers cut into random chunks (one
// byte at a time included, so that every boundary falls inside a string, an escape, a multi-byte
// character, a key and a number), it yields exactly the items JSON.parse finds, and the metadata;
// read the fast way or character by character, whatever the elements hold.
import { describe, expect, it } from 'vitest';
import { FAST_CARRY_LIMIT, ListSplitter } from '../../../src/cluster/list-stream.ts';
import { seededRandom as random } from '../../support/seeded-random.ts';

const WORDS: readonly string[] = ['a', 'pod', 'é', '日本', '🙂', 'quote"d', 'back\\slash', 'line\nbreak', '\u0000nul', '{[,]}:', 'tab\t'];

function word(rand: () => number): string {
  return WORDS[Math.floor(rand() * WORDS.length)] ?? 'a';
}

function value(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 3 || r < 0.3) {
    const s = rand();
    if (s < 0.25) return Math.floor(rand() * 1e6) - 5e5;
    if (s < 0.35) return rand() * 100;
    if (s < 0.45) return rand() < 0.5;
    if (s < 0.5) return null;
    return word(rand);
  }
  if (r < 0.65) return Array.from({ length: Math.floor(rand() * 4) }, () => value(rand, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, (_, i) => [`${word(rand)}${i}`, value(rand, depth + 1)]));
}

function split(text: string, rand: () => number, oneByte: boolean): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = oneByte ? 1 : 1 + Math.floor(rand() * 40);
    chunks.push(bytes.subarray(i, i + n));
    i += n;
  }
  return chunks;
}

function run(chunks: readonly Uint8Array[], metadataFollowedBy?: string) {
  const items: unknown[] = [];
  const metadata: { value: unknown; itemsBefore: number }[] = [];
  const splitter = new ListSplitter({
    ...(metadataFollowedBy === undefined ? {} : { metadataFollowedBy }),
    onItem: (value) => items.push(value),
    onMetadata: (value) => metadata.push({ value, itemsBefore: items.length }),
  });
  for (const c of chunks) splitter.push(c);
  return { items, metadata, end: splitter.end(), stats: splitter.stats };
}

/**
 * An element shaped like a Kubernetes object (`metadata` first), holding what could be taken for the
 * start of the next element: nested arrays of objects that begin with `metadata`, and strings that hold
 * the same text.
 */
function kubeElement(rand: () => number): Record<string, unknown> {
  const nested = (): Record<string, unknown> => ({ metadata: { name: word(rand) }, n: Math.floor(rand() * 10) });
  const r = rand();
  return {
    metadata: { name: word(rand), uid: `u${Math.floor(rand() * 1e9)}`, labels: { app: word(rand) } },
    spec:
      r < 0.2
        ? { templates: Array.from({ length: 1 + Math.floor(rand() * 3) }, nested) }
        : r < 0.3
          ? { note: '},{"metadata":{"name":"x"}}', tail: [{}, { metadata: {} }] }
          : value(rand, 1),
    ...(rand() < 0.3 ? { status: { count: 9_223_372_036_854_775_807n.toString() } } : {}),
  };
}

/** Chunks of `text` as an API server sends them: tens of KiB, with a random cut somewhere. */
function serverChunks(text: string, rand: () => number): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const cut = Math.floor(rand() * bytes.length);
  return [bytes.subarray(0, cut), bytes.subarray(cut)];
}

describe('ListSplitter', () => {
  it.each(Array.from({ length: 60 }, (_, seed) => seed))('random answer %i, random and one-byte chunks', (seed) => {
    const rand = random(seed + 1);
    const items = Array.from({ length: Math.floor(rand() * 6) }, () => value(rand, 0));
    const doc = {
      kind: 'List',
      apiVersion: 'v1',
      ...(rand() < 0.5 ? { 'm"eta': { x: [1, '}'] } } : {}),
      metadata: { continue: rand() < 0.5 ? 'tok"en\\' : '', resourceVersion: '12' },
      items,
      after: { items: 'not these' },
    };
    const text = rand() < 0.5 ? JSON.stringify(doc) : JSON.stringify(doc, null, 2);
    for (const oneByte of [false, true]) {
      const got = run(split(text, rand, oneByte));
      expect(got.items).toEqual(items);
      expect(got.end).toEqual({ ok: true, end: { metadata: doc.metadata } });
      // The metadata comes before the items here, so it is handed over before the first item.
      expect(got.metadata).toEqual([{ value: doc.metadata, itemsBefore: 0 }]);
    }
  });

  it.each(Array.from({ length: 60 }, (_, seed) => seed))('random Kubernetes-shaped answer %i, read the fast way', (seed) => {
    const rand = random(seed + 1000);
    const items = Array.from({ length: 2 + Math.floor(rand() * 40) }, () => kubeElement(rand));
    const doc = { kind: 'PodList', apiVersion: 'v1', metadata: { continue: 'c', resourceVersion: '7' }, items };
    const text = JSON.stringify(doc);
    for (const chunks of [serverChunks(text, rand), split(text, rand, false), split(text, rand, true)]) {
      const got = run(chunks);
      expect(got.items).toEqual(items);
      expect(got.end).toEqual({ ok: true, end: { metadata: doc.metadata } });
      expect(got.stats.fast + got.stats.slow).toBe(items.length);
      // The first element and the last are read character by character, and those the fast way misread.
      expect(got.stats.slow).toBeGreaterThanOrEqual(Math.min(2, items.length));
    }
  });

  it.each(Array.from({ length: 40 }, (_, seed) => seed))('random Pods with managedFields, left unparsed %i', (seed) => {
    const rand = random(seed + 2000);
    const entry = () => ({ manager: word(rand), operation: 'Update', fieldsV1: { [`f:${word(rand)}`]: { '.': {} } } });
    const items = Array.from({ length: 2 + Math.floor(rand() * 30) }, () => {
      const { metadata, ...rest } = kubeElement(rand);
      const managedFields = rand() < 0.8 ? Array.from({ length: 1 + Math.floor(rand() * 3) }, entry) : undefined;
      return {
        metadata: { ...(metadata as object), ...(managedFields === undefined ? {} : { managedFields }) },
        ...rest,
        spec: rest.spec ?? {},
      };
    });
    const text = JSON.stringify({ kind: 'PodList', metadata: {}, items });
    const want = items.map(({ metadata: { managedFields: _, ...metadata }, ...rest }) => ({ metadata, ...rest }));
    for (const chunks of [serverChunks(text, rand), split(text, rand, false)]) {
      const got = run(chunks, 'spec');
      expect(got.items.length).toBe(items.length);
      // Each element without its managedFields, or whole where they could not be left out provably (a
      // `]` in an entry's string); never anything else.
      const lean = got.items.map((item, i) => {
        if (JSON.stringify(item) === JSON.stringify(want[i])) return true;
        expect(item).toEqual(items[i]);
        return false;
      });
      expect(lean.filter(Boolean).length).toBeGreaterThan(0);
    }
  });

  it('reads all but the first and the last element of a compact answer the fast way', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({
      metadata: { name: `pod-${i}` },
      spec: { containers: [{ name: 'c' }, { name: 'd' }] },
    }));
    const got = run(serverChunks(JSON.stringify({ metadata: {}, items }), random(3)));
    expect(got.items).toEqual(items);
    expect(got.stats).toEqual({ fast: 48, slow: 2 });
  });

  it('reads custom resources the fast way, though their managedFields entries begin with apiVersion too', () => {
    const managed = [
      { apiVersion: 'inferencecache.io/v1alpha1', fieldsType: 'FieldsV1', manager: 'a' },
      { apiVersion: 'inferencecache.io/v1alpha1', fieldsType: 'FieldsV1', manager: 'b' },
    ];
    const items = Array.from({ length: 20 }, (_, i) => ({
      apiVersion: 'inferencecache.io/v1alpha1',
      kind: 'CacheBackend',
      metadata: { managedFields: managed, name: `b-${i}` },
    }));
    const got = run(
      serverChunks(JSON.stringify({ apiVersion: 'inferencecache.io/v1alpha1', items, kind: 'CacheBackendList', metadata: {} }), random(5)),
    );
    expect(got.items).toEqual(items);
    expect(got.stats).toEqual({ fast: 18, slow: 2 });
  });

  it('reads an indented answer character by character, and still finds every element', () => {
    const items = Array.from({ length: 5 }, (_, i) => ({ metadata: { name: `pod-${i}` } }));
    const got = run([Buffer.from(JSON.stringify({ metadata: {}, items }, null, 2))]);
    expect(got.items).toEqual(items);
    expect(got.stats).toEqual({ fast: 0, slow: 5 });
  });

  it('gives up the fast way for good when an element runs past the carry limit without a next one in sight', () => {
    const big = { metadata: { name: 'big' }, data: 'x'.repeat(FAST_CARRY_LIMIT) };
    const items = [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }, big, { metadata: { name: 'c' } }];
    const text = JSON.stringify({ metadata: {}, items }).replace('},{"metadata":{"name":"c"', '} , {"metadata":{"name":"c"');
    const bytes = Buffer.from(text);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
    const got = run(chunks);
    expect(got.items).toEqual(items);
    expect(got.stats).toEqual({ fast: 1, slow: 3 });
  });

  it('items may come before the metadata, and scalars may stand at the end of the array', () => {
    const got = run([Buffer.from('{"items":[1,"x",true,null,-2.5e3],"metadata":{"continue":"c"}}')]);
    expect(got.items).toEqual([1, 'x', true, null, -2500]);
    expect(got.end).toEqual({ ok: true, end: { metadata: { continue: 'c' } } });
    expect(got.metadata).toEqual([{ value: { continue: 'c' }, itemsBefore: 5 }]);
  });

  it.each([
    ['not an object', '[1,2]', 'it is not one complete JSON object'],
    ['cut short', '{"items":[{"a":1}', 'it is not one complete JSON object'],
    ['items is an object', '{"items":{"a":1}}', 'it has no items array'],
    ['no items', '{"kind":"List","metadata":{}}', 'it has no items array'],
    ['trailing garbage', '{"items":[]} x', 'it is not one complete JSON object'],
    ['empty', '', 'it is not one complete JSON object'],
    ['metadata not JSON', '{"metadata":{"a":tru},"items":[]}', 'its metadata is not valid JSON'],
  ])('%s is refused', (_, text, why) => {
    expect(run([Buffer.from(text)]).end).toEqual({ ok: false, why });
  });

  it('hands over no metadata that is not JSON', () => {
    expect(run([Buffer.from('{"metadata":{"continue":x},"items":[]}')]).metadata).toEqual([]);
  });
});

describe('long integers', () => {
  it('keeps integers beyond 2^53 exact, in elements read either way, across chunks', () => {
    const text =
      '{"items":[{"n":123456789012345},{"n":9223372036854775807},{"uid":"12345678901234567890"},[1234567890123456],1234567890123456,-9007199254740993],"metadata":{}}';
    const want = [
      { n: 123456789012345 },
      { n: 9223372036854775807n },
      { uid: '12345678901234567890' },
      [1234567890123456],
      1234567890123456,
      -9007199254740993n,
    ];
    for (const chunks of [[Buffer.from(text)], [...Buffer.from(text)].map((b) => Uint8Array.of(b))]) {
      const got = run(chunks);
      expect(got.end.ok).toBe(true);
      expect(got.items).toEqual(want);
    }
    const pods = '{"items":[{"n":1},{"n":9223372036854775807},{"n":2}],"metadata":{}}';
    const got = run([Buffer.from(pods)]);
    expect(got.items).toEqual([{ n: 1 }, { n: 9223372036854775807n }, { n: 2 }]);
    expect(got.stats).toEqual({ fast: 1, slow: 2 });
  });
});
