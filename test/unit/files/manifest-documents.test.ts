// Kubernetes objects from the text of a file: the shapes operators give (multi-document YAML, JSON,
// Lists, typed lists, helm template output, a dump) and the hostile ones, each refused in one line.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../src/files/input-error.ts';
import { MAX_DEPTH, MAX_YAML_DOCUMENT_CHARS, dumpHeadline, parseManifest } from '../../../src/files/manifest-documents.ts';

const parse = (text: string | Uint8Array) => parseManifest(typeof text === 'string' ? Buffer.from(text) : text, 'f.yaml');
const kinds = async (text: string) =>
  (await parse(text)).objects.map(
    (o) => `${o.apiVersion} ${o.kind} ${String((o.value['metadata'] as { name?: string } | undefined)?.name)}`,
  );

describe('where each object stands', () => {
  const placed = async (text: string, file: string | null = 'dir/f.yaml') =>
    (await parseManifest(Buffer.from(text), 'f', file ?? undefined)).objects.map((o) => [
      (o.value['metadata'] as { name: string }).name,
      o.at,
    ]);

  it.each([
    ['one document: its first line', 'apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n', [['a', { file: 'dir/f.yaml', line: 1 }]]],
    [
      'helm template output: the line after the comments, and the template the comment names',
      '---\n# Source: c/templates/a.yaml\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n\n# a note\n# Source: c/templates/b.yaml\n\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n',
      [
        ['a', { file: 'dir/f.yaml', line: 3, template: 'c/templates/a.yaml' }],
        ['b', { file: 'dir/f.yaml', line: 11, template: 'c/templates/b.yaml' }],
      ],
    ],
    [
      'a comment naming a Source below the object is no template',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n# Source: c/templates/a.yaml\n',
      [['a', { file: 'dir/f.yaml', line: 1 }]],
    ],
    [
      'a YAML List: each item at its own line',
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: q\n',
      [
        ['p', { file: 'dir/f.yaml', line: 4 }],
        ['q', { file: 'dir/f.yaml', line: 7 }],
      ],
    ],
    [
      'JSON: every object on line 1',
      '{"apiVersion":"v1","kind":"List","items":[\n{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}},\n{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q"}}]}',
      [
        ['p', { file: 'dir/f.yaml', line: 1 }],
        ['q', { file: 'dir/f.yaml', line: 1 }],
      ],
    ],
  ])('%s', async (_name, text, expected) => {
    expect(await placed(text)).toEqual(expected);
  });

  it('has no place for standard input', async () => {
    expect(await placed('apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n', null)).toEqual([['a', undefined]]);
  });

  it('counts lines once through a large file of many documents', async () => {
    const docs = Array.from({ length: 5_000 }, (_, i) => `---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p${i}\n`).join('');
    const got = await placed(docs);
    expect(got[4_999]).toEqual(['p4999', { file: 'dir/f.yaml', line: 4_999 * 5 + 2 }]);
  });
});

describe('what a file holds', () => {
  it.each([
    ['one YAML document', 'apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n', ['v1 Pod a']],
    [
      'helm template output: comments, empty documents, several Kinds',
      '---\n# Source: chart/templates/a.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n---\n---\n# Source: b.yaml\napiVersion: inferencecache.io/v1alpha1\nkind: CacheBackend\nmetadata:\n  name: be\n',
      ['v1 ServiceAccount sa', 'inferencecache.io/v1alpha1 CacheBackend be'],
    ],
    ['a JSON object', '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}', ['v1 Node n1']],
    [
      'a kubectl List of several Kinds',
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\n',
      ['v1 Pod p', 'v1 Node n'],
    ],
    [
      'a typed list whose items lack apiVersion and kind, as an API server lists them',
      'apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: p1}\n- metadata: {name: p2}\n',
      ['v1 Pod p1', 'v1 Pod p2'],
    ],
  ])('%s', async (_what, text, expected) => {
    expect(await kinds(text)).toEqual(expected);
  });

  it('a typed list says its Kind is given, even empty; a plain List says nothing', async () => {
    expect((await parse('apiVersion: v1\nkind: EventList\nitems: []\n')).lists).toEqual([{ apiVersion: 'v1', kind: 'Event' }]);
    expect((await parse('apiVersion: v1\nkind: List\nitems: []\n')).lists).toEqual([]);
  });

  it('keeps integers beyond 2^53 exact, in YAML and JSON, and the others as numbers', async () => {
    const yaml = await parse('apiVersion: v1\nkind: X\nbig: 9223372036854775807\nsmall: 7\n');
    expect(yaml.objects[0]?.value).toMatchObject({ big: 9223372036854775807n, small: 7 });
    const json = await parse('{"apiVersion":"v1","kind":"X","big":9223372036854775807,"small":7}');
    expect(json.objects[0]?.value).toMatchObject({ big: 9223372036854775807n, small: 7 });
  });

  it("finds a dump's recorded time in its leading comment (YAML) or $comment (JSON), and nowhere else", async () => {
    const at = new Date('2026-12-01T10:20:30.456Z');
    const headline = dumpHeadline(at, '1.2.3', 'kind-prod', '');
    expect(headline).toBe(
      'inferencecache dump taken 2026-12-01T10:20:30.456Z by inferencecache 1.2.3 from context "kind-prod", all namespaces',
    );
    expect(
      (await parse(`# ${headline}\n---\napiVersion: v1\nkind: PodList\nitems: []\n# inferencecache dump complete\n`)).dumpTakenAt,
    ).toEqual(at);
    await expect(parse(`# ${headline}\n---\napiVersion: v1\nkind: PodList\nitems: []\n`)).rejects.toThrow(
      'is an incomplete dump (it does not end with the line that closes a complete dump, so it was cut short)',
    );
    const json = JSON.stringify({ $comment: headline, apiVersion: 'v1', kind: 'List', items: [] });
    expect((await parseManifest(Buffer.from(json), 'd.json')).dumpTakenAt).toEqual(at);
    expect((await parse(`apiVersion: v1\nkind: PodList\nitems: []\n# ${headline}\n`)).dumpTakenAt).toBeUndefined();
    expect(
      (await parse(`# inferencecache dump taken yesterday by someone\napiVersion: v1\nkind: PodList\nitems: []\n`)).dumpTakenAt,
    ).toBeUndefined();
  });
});

describe('hostile or broken text: one InputError naming the file', () => {
  const bomb = [
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
    'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
    'g: [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
  ].join('\n');
  it.each([
    ['a YAML alias bomb', bomb, /f\.yaml, document 1 could not be read as YAML: .*alias/],
    ['YAML nested 100,000 deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, /f\.yaml.* (nests|not valid JSON)/],
    [
      'block YAML nested 1,800 deep',
      Array.from({ length: 1800 }, (_, i) => `${' '.repeat(i)}a:`).join('\n'),
      /f\.yaml, document 1 (is not valid YAML|could not be read as YAML): it nests too deeply|nests deeper than 64/,
    ],
    ['JSON nested deeper than any object', `{"a":${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}}`, /nests deeper than 64 levels/],
    ['a document that is a string', 'just text\n', /document 1 is not a Kubernetes object/],
    ['a document without kind', 'apiVersion: v1\nmetadata: {}\n', /document 1 has no kind/],
    ['a document without apiVersion', 'kind: Pod\n', /document 1 \(kind "Pod"\) has no apiVersion/],
    ['a key given twice', 'apiVersion: v1\nkind: Pod\nkind: Node\n', /document 1 is not valid YAML/],
    ['broken JSON', '{"apiVersion": ', /f\.yaml is not valid JSON/],
    [
      'Lists nested four deep',
      JSON.stringify({ kind: 'List', items: [{ kind: 'List', items: [{ kind: 'List', items: [{ kind: 'List', items: [] }] }] }] }),
      /nests Lists more than 3 deep/,
    ],
  ])('%s', async (_what, text, error) => {
    const started = Date.now();
    const failure = await parse(text).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(InputError);
    expect((failure as Error).message).toMatch(error);
    expect((failure as Error).message).not.toContain('\n');
    // Bounded: seconds at most on a busy machine, never a hang.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a YAML document larger than the doctor parses whole is refused before it is parsed; the same objects one per document are read', async () => {
    const pod = (i: number) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p${i}\n  annotations: {note: "${'x'.repeat(1000)}"}\n`;
    const count = Math.ceil(MAX_YAML_DOCUMENT_CHARS / 1000) + 10;
    const list = `# a large List\napiVersion: v1\nkind: List\nitems:\n${Array.from({ length: count }, (_, i) => `- ${pod(i).replace(/\n(?=.)/g, '\n  ')}`).join('')}`;
    const started = Date.now();
    await expect(parse(list)).rejects.toThrow(
      /the YAML document at line 1 holds \d+ characters, more than the 2097152 .*give a large List as JSON/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    const split = Array.from({ length: count }, (_, i) => `---\n${pod(i)}`).join('');
    expect((await parse(split)).objects).toHaveLength(count);
  });

  it('text that is not UTF-8', async () => {
    await expect(parse(Uint8Array.from([0x6b, 0x69, 0x6e, 0x64, 0x3a, 0x20, 0xff, 0xfe, 0x0a]))).rejects.toThrow(
      'f.yaml is not UTF-8 text',
    );
  });
});
