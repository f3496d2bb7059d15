// The streaming list splitter against JSON.parse: for random list answers cut into random chunks (one
// byte at a time included, so that every boundary falls inside a string, an escape, a multi-byte
// character, a key and a number), it yields exactly the items JSON.parse finds, and the metadata;
// read the fast way or character by character, whatever the elements hold. A member named twice reads
// as JSON.parse reads it, text that JSON.parse refuses is refused, and what a handler throws passes
// through as it is.
import { describe, expect, it } from 'vitest';
import {
  ElementNotJson,
  FAST_CARRY_LIMIT,
  FAST_MISSES_LIMIT,
  ListSplitter,
  type SplitterMode,
} from '../../../src/cluster/encoding/list-stream.ts';
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
  const modes: SplitterMode[] = [];
  const splitter = new ListSplitter({
    ...(metadataFollowedBy === undefined ? {} : { metadataFollowedBy }),
    onItem: (value) => items.push(value),
    onMetadata: (value) => metadata.push({ value, itemsBefore: items.length }),
  });
  const seen = () => {
    if (modes.at(-1) !== splitter.mode) modes.push(splitter.mode);
  };
  seen();
  for (const c of chunks) {
    splitter.push(c);
    seen();
  }
  const end = splitter.end();
  seen();
  return { items, metadata, end, stats: splitter.stats, modes };
}

/** `text` one byte at a time. */
function bytes(text: string): Uint8Array[] {
  return [...Buffer.from(text)].map((b) => Uint8Array.of(b));
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
    ['an earlier metadata not JSON', '{"metadata":{"a":tru},"items":[],"metadata":{}}', 'its metadata is not valid JSON'],
    ['another member not JSON', '{"kind":Pod,"items":[]}', 'its kind is not valid JSON'],
    ['a number that is not JSON', '{"items":[],"count":01}', 'its count is not valid JSON'],
    ['a key with a bad escape', '{"\\x":1,"items":[]}', 'it is not one complete JSON object'],
    ['a comma after the last member', '{"items":[],}', 'it is not one complete JSON object'],
    ['a comma before the first element', '{"items":[,1]}', 'it is not one complete JSON object'],
    ['a comma after the last element', '{"items":[1,]}', 'it is not one complete JSON object'],
    ['two commas between elements', '{"items":[{"metadata":{}},,{"metadata":{}}]}', 'it is not one complete JSON object'],
    ['no comma between elements', '{"items":[1 2]}', 'it is not one complete JSON object'],
  ])('%s is refused', (_, text, why) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    expect(Array.isArray((parsed as { items?: unknown } | null | undefined)?.items)).toBe(false);
    for (const chunks of [[Buffer.from(text)], bytes(text)]) expect(run(chunks).end).toEqual({ ok: false, why });
  });

  it.each([
    ['the first', '{"items":[{"metadata":tru},{"metadata":{}},{"metadata":{}}]}', 0],
    ['one read the fast way', '{"items":[{"metadata":{}},{"metadata":{"a":tru}},{"metadata":{}}]}', 1],
    ['the last', '{"items":[{"metadata":{}},{"metadata":{}},{"metadata":{"a":tru}}]}', 2],
  ])('an element that is not JSON is thrown as ElementNotJson, with its index and the SyntaxError: %s', (_, text, index) => {
    let thrown: unknown;
    try {
      run([Buffer.from(text)]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ElementNotJson);
    expect(thrown).toMatchObject({ index, cause: expect.any(SyntaxError) });
  });

  it.each([
    ['TypeError', new TypeError('a bug in a projection')],
    ['SyntaxError', new SyntaxError('a JSON.parse of its own, in a projection')],
  ])('what onItem throws (%s) passes through push and end as it is, for elements read either way', (_, bug) => {
    const text = JSON.stringify({
      metadata: {},
      items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }, { metadata: { name: 'c' } }],
    });
    for (const fail of ['a', 'b', 'c']) {
      const splitter = new ListSplitter({
        onItem: (value) => {
          if ((value as { metadata: { name: string } }).metadata.name === fail) throw bug;
        },
      });
      expect(() => {
        splitter.push(Buffer.from(text));
        splitter.end();
      }).toThrow(bug);
    }
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

describe('one mode at a time', () => {
  const plain = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c' }] } });
  // Holds `},{"metadata":` inside, which the fast way takes for the end of the element at first.
  const misleading = (name: string) => ({
    metadata: { name },
    spec: { templates: [{ metadata: { name: 'x' } }, { metadata: { name: 'y' } }] },
  });

  it('scans until an element shows the way, reads the next ones fast, rereads one it misread, and gives up at the end', () => {
    const items = [plain('a'), plain('b'), misleading('c'), plain('d'), plain('e')];
    const got = run(bytes(JSON.stringify({ kind: 'PodList', metadata: {}, items })));
    expect(got.items).toEqual(items);
    expect(got.modes).toEqual(['scanning', 'slow', 'fast', 'rereading', 'slow', 'fast', 'given-up']);
    expect(got.stats).toEqual({ fast: 2, slow: 3 });
  });

  it('stays scanning, character by character, when no element begins the way the fast way needs', () => {
    const got = run(bytes('{"items":[1,[2],"x",{ "metadata":{}}],"metadata":{}}'));
    expect(got.items).toEqual([1, [2], 'x', { metadata: {} }]);
    expect(got.modes).toEqual(['scanning', 'given-up']);
  });

  it(`gives the fast way up for good after ${FAST_MISSES_LIMIT} misreads, and not before`, () => {
    for (const misreads of [FAST_MISSES_LIMIT - 1, FAST_MISSES_LIMIT]) {
      const items = [plain('a'), ...Array.from({ length: misreads }, (_, i) => misleading(`m${i}`)), plain('x'), plain('y'), plain('z')];
      const text = JSON.stringify({ metadata: {}, items });
      const splitter = new ListSplitter({ onItem: () => undefined });
      splitter.push(Buffer.from(text));
      if (misreads < FAST_MISSES_LIMIT) {
        // `x` and `y` read the fast way; `z`, the last, waits for the end.
        expect(splitter.mode).toBe('fast');
        expect(splitter.end().ok).toBe(true);
        expect(splitter.stats).toEqual({ fast: 2, slow: misreads + 2 });
      } else {
        expect(splitter.mode).toBe('given-up');
        expect(splitter.end().ok).toBe(true);
        expect(splitter.stats).toEqual({ fast: 0, slow: items.length });
      }
    }
  });
});

describe('a member named twice reads as JSON.parse reads it', () => {
  it.each(Array.from({ length: 30 }, (_, seed) => seed))(
    'metadata named again after the items %i: the last one is the end, each handed over in turn',
    (seed) => {
      const rand = random(seed + 3000);
      const items = Array.from({ length: 1 + Math.floor(rand() * 20) }, () => kubeElement(rand));
      const first = { continue: 'first', resourceVersion: '1' };
      const last = rand() < 0.5 ? { continue: 'last', resourceVersion: '2' } : rand() < 0.5 ? {} : null;
      const text = `{"kind":"PodList","metadata":${JSON.stringify(first)},"items":${JSON.stringify(items)},"metadata":${JSON.stringify(last)}}`;
      const parsed = JSON.parse(text) as { items: unknown; metadata: unknown };
      expect(parsed.metadata).toEqual(last);
      for (const chunks of [serverChunks(text, rand), split(text, rand, false), bytes(text)]) {
        const got = run(chunks);
        expect(got.items).toEqual(parsed.items);
        expect(got.end).toEqual({ ok: true, end: { metadata: parsed.metadata } });
        expect(got.metadata).toEqual([
          { value: first, itemsBefore: 0 },
          { value: last, itemsBefore: items.length },
        ]);
      }
    },
  );

  it.each([
    ['two arrays', '{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}],"items":[{"metadata":{"name":"c"}}]}'],
    ['an array, then something else', '{"items":[1,2],"metadata":{},"items":null}'],
    ['an array, then the same key written with an escape', '{"items":[1,2],"\\u0069tems":[]}'],
    ['three arrays', '{"items":[1],"items":[2],"items":[3]}'],
  ])('items named again after the array is refused (its elements are handed over already): %s', (_, text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    for (const chunks of [[Buffer.from(text)], bytes(text)]) expect(run(chunks).end).toEqual({ ok: false, why: 'it holds items twice' });
  });

  it('items that is no array, then an array: the array is the list, as in JSON.parse', () => {
    const text = '{"items":{"not":"a list"},"items":[1,{"metadata":{}}],"metadata":{"continue":"c"}}';
    const parsed = JSON.parse(text) as { items: unknown; metadata: unknown };
    const got = run(bytes(text));
    expect(got.items).toEqual(parsed.items);
    expect(got.end).toEqual({ ok: true, end: { metadata: parsed.metadata } });
  });

  it('keys are read decoded, escapes included', () => {
    const text = '{"m\\u0065tadata":{"continue":"c"},"\\u0069tems":[{"metadata":{}}],"kind":"List"}';
    const parsed = JSON.parse(text) as { items: unknown; metadata: unknown };
    const got = run(bytes(text));
    expect(got.items).toEqual(parsed.items);
    expect(got.end).toEqual({ ok: true, end: { metadata: parsed.metadata } });
    expect(got.metadata).toEqual([{ value: { continue: 'c' }, itemsBefore: 0 }]);
  });
});

describe('managedFields left out never make an element JSON that is not', () => {
  const entry =
    '{"manager":"kubectl","operation":"Update","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"k:{\\"name\\":\\"c\\"}":{".":{}}}}}';
  const element = (metadata: string) => `{"metadata":{"name":"p"${metadata}},"spec":{"containers":[{"name":"c"}]},"status":{}}`;
  // Each broken text's only defect lies in its managedFields member (or the comma that opens it); its
  // twin is the same text made JSON, which is read without its managedFields.
  const cases: readonly [string, string, string][] = [
    ['a bare word in an entry', `[{"manager":tru}]`, `[{"manager":"tru"}]`],
    ['a comma after the last member of an entry', `[{"manager":"a",}]`, `[{"manager":"a"}]`],
    ['a comma after the last entry', `[${entry},]`, `[${entry}]`],
    ['a comma before the first entry', `[,${entry}]`, `[${entry}]`],
    ['two entries without a comma', `[${entry}${entry}]`, `[${entry},${entry}]`],
    ['a key without a value', `[{"manager"}]`, `[{"manager":""}]`],
    ['a missing colon', `[{"manager" "a"}]`, `[{"manager":"a"}]`],
    ['a brace too few', `[{"fieldsV1":{"f:a":{}}]`, `[{"fieldsV1":{"f:a":{}}}]`],
    ['a brace too many', `[{"fieldsV1":{}}}]`, `[{"fieldsV1":{}}]`],
    ['an opening bracket that never closes', `[{"fieldsV1":[{}}]`, `[{"fieldsV1":{}}]`],
    ['a string that never closes, running into the next key', `[{"manager":"a}]`, `[{"manager":"a"}]`],
    ['a bad escape', `[{"manager":"a\\x"}]`, `[{"manager":"a\\u0078"}]`],
    ['a short unicode escape', `[{"manager":"a\\u12"}]`, `[{"manager":"a\\u0012"}]`],
    ['a control character in a string', `[{"manager":"a\u0001b"}]`, `[{"manager":"a\\u0001b"}]`],
    ['a single-quoted string', `[{'manager':'a'}]`, `[{"manager":"a"}]`],
  ];
  const texts = cases.flatMap(([name, broken, fixed]) => [
    { name, text: element(`,"managedFields":${broken}`), valid: false },
    { name: `${name} (made JSON)`, text: element(`,"managedFields":${fixed}`), valid: true },
  ]);
  // The comma that opens the member follows a `{`: the member is the first in its object.
  texts.push({
    name: 'a comma opening the object',
    text: element('').replace('{"name":"p"', `{,"managedFields":[${entry}]`),
    valid: false,
  });

  /** What reading `text` among two other elements, at `position`, gives: the items and the end, or what was thrown. */
  function read(text: string, position: number, metadataFollowedBy?: string): { items: unknown[]; ok: boolean } | { thrown: unknown } {
    const elements = ['{"metadata":{"name":"x"},"spec":{}}', '{"metadata":{"name":"y"},"spec":{}}'];
    elements.splice(position, 0, text);
    try {
      const got = run([Buffer.from(`{"kind":"PodList","metadata":{},"items":[${elements.join(',')}]}`)], metadataFollowedBy);
      return { items: got.items, ok: got.end.ok };
    } catch (err) {
      return { thrown: err };
    }
  }

  it.each(texts)('$name', ({ text, valid }) => {
    let parsed: unknown;
    if (valid) parsed = JSON.parse(text);
    else expect(() => JSON.parse(text)).toThrow(SyntaxError);
    // First (read character by character), between two (read the fast way), last (read at the end).
    for (const position of [0, 1, 2]) {
      const lean = read(text, position, 'spec');
      const whole = read(text, position);
      if (valid) {
        const { managedFields: _, ...metadata } = (parsed as { metadata: Record<string, unknown> }).metadata;
        expect(lean).toMatchObject({ ok: true, items: expect.arrayContaining([{ ...(parsed as object), metadata }]) });
        expect(whole).toMatchObject({ ok: true, items: expect.arrayContaining([parsed]) });
      } else if ('thrown' in whole) {
        // Refused exactly as without the cut: the same element, the same message.
        expect(whole.thrown).toBeInstanceOf(ElementNotJson);
        expect(whole.thrown).toMatchObject({ index: position });
        expect(lean).toEqual(whole);
        expect(((lean as { thrown: ElementNotJson }).thrown.cause as Error).message).toBe(
          ((whole.thrown as ElementNotJson).cause as Error).message,
        );
      } else {
        // A string that never closes swallows the rest: no complete answer, with the cut or without.
        expect(whole.ok).toBe(false);
        expect(lean).toEqual(whole);
      }
    }
  });
});
