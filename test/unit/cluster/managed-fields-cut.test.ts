// Leaving managedFields out against JSON.parse, on random damage: Pods as an API server writes them,
// with one to three random edits in and around their managedFields member (a character deleted,
// inserted or replaced, a stretch repeated). Whatever the edits, the text left parses exactly when the
// whole text does, and then to the same object but for that member.
import { describe, expect, it } from 'vitest';
import { parseApiJson, withoutManagedFields } from '../../../src/cluster/encoding/api-json.ts';
import { seededRandom as random } from '../../support/seeded-random.ts';

const MANAGED = [
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-12-03T10:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {} } } } },
  },
  {
    manager: 'kubelet',
    operation: 'Update',
    subresource: 'status',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } }, 'f:podIP': {} } },
  },
];

const POD = JSON.stringify({
  metadata: { name: 'p', namespace: 'n', uid: 'u', labels: { app: 'a' }, managedFields: MANAGED },
  spec: { containers: [{ name: 'c', image: 'i' }] },
  status: { phase: 'Running', startTime: '2026-12-03T10:00:00Z' },
});

/** What JSON may hold, and what breaks it: structure, quotes, escapes, letters, digits, a space, a control character. */
const CHARACTERS = ['{', '}', '[', ']', ',', ':', '"', '\\', 'u', 'a', '0', ' ', '\u0001', "'", '/'];

function damaged(rand: () => number): string {
  let text = POD;
  const from = POD.indexOf(',"managedFields"') - 2;
  const to = POD.indexOf(',"spec"') + 2;
  for (let edits = 1 + Math.floor(rand() * 3); edits > 0; edits--) {
    const at = from + Math.floor(rand() * (to - from));
    const c = CHARACTERS[Math.floor(rand() * CHARACTERS.length)] ?? '';
    const r = rand();
    if (r < 0.3) text = text.slice(0, at) + text.slice(at + 1);
    else if (r < 0.6) text = text.slice(0, at) + c + text.slice(at);
    else if (r < 0.9) text = text.slice(0, at) + c + text.slice(at + 1);
    else text = text.slice(0, at) + text.slice(at, at + 1 + Math.floor(rand() * 12)) + text.slice(at);
  }
  return text;
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseApiJson(text) };
  } catch {
    return { ok: false };
  }
}

describe('withoutManagedFields on damaged Pods', () => {
  it.each(Array.from({ length: 20 }, (_, seed) => seed))('seed %i: the text left parses exactly when the whole text does', (seed) => {
    const rand = random(seed + 4000);
    let cut = 0;
    let invalid = 0;
    for (let trial = 0; trial < 500; trial++) {
      const text = damaged(rand);
      const lean = withoutManagedFields(text, 'spec');
      const whole = parsed(text);
      const left = parsed(lean);
      expect({ text, ok: left.ok }).toEqual({ text, ok: whole.ok });
      if (!whole.ok) invalid++;
      if (lean === text || !whole.ok || !left.ok) continue;
      cut++;
      const { managedFields: _, ...metadata } = (whole.value as { metadata: Record<string, unknown> }).metadata;
      expect(left.value).toEqual({ ...(whole.value as object), metadata });
    }
    // The damage leaves both kinds: texts that are no JSON, and JSON whose member is still left out.
    expect(invalid).toBeGreaterThan(50);
    expect(cut).toBeGreaterThan(10);
  });

  it('an undamaged Pod loses its managedFields', () => {
    const lean = withoutManagedFields(POD, 'spec');
    expect(lean.length).toBeLessThan(POD.length / 2);
    expect(JSON.parse(lean)).toEqual({ ...JSON.parse(POD), metadata: { name: 'p', namespace: 'n', uid: 'u', labels: { app: 'a' } } });
  });

  it('keeps integers beyond 2^53 exact outside the member, and knows a 16-digit run wherever it stands', () => {
    const text = POD.replace(
      '"phase":"Running"',
      '"phase":"Running","restarts":9223372036854775807,"small":[123456789012345,-9007199254740993]',
    );
    expect(parseApiJson(withoutManagedFields(text, 'spec'))).toMatchObject({
      status: { restarts: 9223372036854775807n, small: [123456789012345, -9007199254740993n] },
    });
    // At every offset from a 16-character boundary, and right at the start and the end of the text.
    for (let pad = 0; pad < 20; pad++) {
      const padded = `{"${'x'.repeat(pad)}":1,"n":12345678901234567}`;
      expect(parseApiJson(padded)).toEqual({ ['x'.repeat(pad)]: 1, n: 12345678901234567n });
      expect(parseApiJson(`${' '.repeat(pad)}12345678901234567`)).toBe(12345678901234567n);
      expect(parseApiJson(`[${' '.repeat(pad)}9007199254740993]`)).toEqual([9007199254740993n]);
    }
  });
});
