// A key given twice in one JSON object is refused as YAML refuses it; the same key in different
// objects, or a key-like string among values, is not a duplicate.
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from '../../../src/files/json-duplicate-keys.ts';
import { parseManifest } from '../../../src/files/manifest-documents.ts';

describe('firstDuplicateKey', () => {
  it.each([
    ['{"a":1,"a":2}', { key: 'a', line: 1 }],
    ['{"a":1,\n"b":{"c":1},\n"a":3}', { key: 'a', line: 3 }],
    ['{"a":"x","\\u0061":2}', { key: 'a', line: 1 }],
    ['{"k":{"x":1,"y":[{"x":1,"x":2}]}}', { key: 'x', line: 1 }],
    ['{"a\\"b":1,"a\\"b":2}', { key: 'a"b', line: 1 }],
  ])('%s', (text, duplicate) => {
    expect(firstDuplicateKey(text)).toEqual(duplicate);
  });

  it.each([
    '{"a":1,"b":{"a":2}}',
    '[{"a":1},{"a":1}]',
    '{"a":"a","b":"a"}',
    '{"a":["a","a"]}',
    '{"a,":1,"{a":2,"a":3}',
    '{}',
    '[]',
    '"{\\"a\\":1,\\"a\\":2}"',
  ])('none in %s', (text) => {
    expect(firstDuplicateKey(text)).toBeUndefined();
  });

  it('doctor -f refuses a JSON file with one, naming the file, the key and the line, as it does YAML', async () => {
    const json = '{"apiVersion":"v1","kind":"Pod",\n"metadata":{"name":"a","name":"b"}}';
    await expect(parseManifest(Buffer.from(json), 'pod.json')).rejects.toThrow(
      'pod.json is not valid: line 2 gives the key "name" a second time in one object',
    );
    await expect(parseManifest(Buffer.from('apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n'), 'pod.yaml')).rejects.toThrow(
      'pod.yaml, document 1 is not valid YAML: Map keys must be unique',
    );
  });
});
