// The streaming list splitter against JSON.parse: for random list answers cut into random chunks (one
// byte at a time included, so that every boundary falls inside a string, an escape, a multi-byte
// character, a key and a number), it yields exactly the items JSON.parse finds, and the metadata.
import { describe, expect, it } from 'vitest';
import { ListSplitter } from '../../../src/cluster/list-stream.ts';
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

function run(chunks: readonly Uint8Array[]) {
  const items: unknown[] = [];
  const metadata: { value: unknown; itemsBefore: number }[] = [];
  const splitter = new ListSplitter({
    onItem: (text) => items.push(JSON.parse(text)),
    onMetadata: (value) => metadata.push({ value, itemsBefore: items.length }),
  });
  for (const c of chunks) splitter.push(c);
  return { items, metadata, end: splitter.end() };
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
  it('says which items hold a number of 16 digits or more, outside strings, across chunks', () => {
    const flags: boolean[] = [];
    const splitter = new ListSplitter({ onItem: (_, longInteger) => flags.push(longInteger) });
    const text =
      '{"items":[{"n":123456789012345},{"n":9223372036854775807},{"uid":"12345678901234567890"},[1234567890123456],1234567890123456,123456789012345],"metadata":{}}';
    for (const byte of Buffer.from(text)) splitter.push(Uint8Array.of(byte));
    expect(splitter.end().ok).toBe(true);
    expect(flags).toEqual([false, true, false, true, true, false]);
  });
});
