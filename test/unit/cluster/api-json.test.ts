// Leaving managedFields unparsed: only a whole member, only where the API server's layout proves where
// it ends; any other text comes back as it was.
import { describe, expect, it } from 'vitest';
import { withoutManagedFields } from '../../../src/cluster/encoding/api-json.ts';

const MANAGED = [
  {
    manager: 'kubectl',
    operation: 'Update',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'k:{"name":"c"}': { '.': {} } } },
  },
];
const pod = (metadata: Record<string, unknown>) => ({ metadata, spec: { containers: [{ name: 'c' }] }, status: { phase: 'Running' } });
const without = <T extends { metadata: Record<string, unknown> }>(o: T): T => {
  const { managedFields: _, ...metadata } = o.metadata;
  return { ...o, metadata };
};

describe('withoutManagedFields', () => {
  it.each([
    ['a Pod as the API server writes it', pod({ name: 'p', labels: { a: 'b' }, managedFields: MANAGED })],
    [
      'entries whose strings hold braces, commas and the next key',
      pod({ name: 'p', managedFields: [{ manager: '}},"spec":{', fieldsV1: { 'f:x': {} } }] }),
    ],
    ['several entries', pod({ name: 'p', managedFields: [...MANAGED, ...MANAGED] })],
  ])('removes the member whole: %s', (_, object) => {
    const text = JSON.stringify(object);
    const lean = withoutManagedFields(text, 'spec');
    expect(lean.length).toBeLessThan(text.length);
    expect(JSON.parse(lean)).toEqual(without(object));
  });

  it.each([
    ['no managedFields', JSON.stringify(pod({ name: 'p' }))],
    ['another key after metadata', JSON.stringify({ metadata: { name: 'p', managedFields: MANAGED }, status: {}, spec: {} })],
    [
      'managedFields not last in metadata (not the Go order)',
      JSON.stringify({ metadata: { name: 'p', managedFields: MANAGED, ownerReferences: [{ uid: 'u' }] }, spec: {} }),
    ],
    ['a bracket in an entry’s string', JSON.stringify(pod({ name: 'p', managedFields: [{ manager: 'a]b' }] }))],
    ['managedFields first in metadata', JSON.stringify({ metadata: { managedFields: MANAGED }, spec: {} })],
    ['indented', JSON.stringify(pod({ name: 'p', managedFields: MANAGED }), null, 1)],
    ['cut short', JSON.stringify(pod({ name: 'p', managedFields: MANAGED })).slice(0, 60)],
  ])('leaves the text as it is: %s', (_, text) => {
    expect(withoutManagedFields(text, 'spec')).toBe(text);
  });

  it('keeps invalid text invalid', () => {
    const text = JSON.stringify(pod({ name: 'p', managedFields: MANAGED })).replace('"Running"', 'Running');
    const lean = withoutManagedFields(text, 'spec');
    expect(lean).not.toBe(text);
    expect(() => JSON.parse(lean)).toThrow(SyntaxError);
  });
});
