// How a dump is laid out: YAML every reader reads alike (the `yaml` package in 1.1 and 1.2, PyYAML;
// kubectl in the integration suites), compact JSON, and a stream cut at any point that says it is
// incomplete, which doctor -f refuses.
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { dumpJson, dumpYaml, incompleteDumpReason, type DumpDocument, type DumpStream } from '../../../src/files/dump-stream.ts';
import { parseManifest } from '../../../src/files/manifest-documents.ts';

/** Strings that YAML 1.1 or 1.2 would read as something else when written plain. */
const AMBIGUOUS = [
  'y',
  'n',
  'Y',
  'N',
  'yes',
  'No',
  'on',
  'OFF',
  'true',
  'False',
  'null',
  '~',
  '',
  '0755',
  '010',
  '0o17',
  '0x1F',
  '1_000',
  '1:20',
  '190:20:30',
  '1e3',
  '+1',
  '-1',
  '.5',
  '.inf',
  '-.Inf',
  '.NaN',
  '2026-01-01',
  '2026-01-01T00:00:00Z',
  '2001-12-14 21:59:43.10 -5',
  '=',
  '<<',
  '12345678901234567890123456789012345678901234567890',
  'plain',
  'a: b',
  '- x',
  '#c',
  '@x',
  '`x',
];

const DUMP: DumpDocument = {
  headline: 'inferencecache dump taken 2026-12-06T00:00:00.000Z by inferencecache 0.1.0 from context "c", all namespaces',
  notes: ['a note\nwith a line break'],
  lists: [
    {
      apiVersion: 'v1',
      kind: 'PodList',
      items: AMBIGUOUS.map((text, i) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: text === '' ? 'empty' : `p${i}`, namespace: 'ns', labels: { [text]: text }, annotations: { a: text } },
        spec: { containers: [{ name: 'c', args: [text] }] },
      })),
    },
    { apiVersion: 'v1', kind: 'NodeList', items: [] },
  ],
};

const whole = (stream: DumpStream) => [...stream.pieces].join('');

/** The objects of a YAML stream as the `yaml` package reads it in `version`. */
function readYaml(text: string, version: '1.1' | '1.2'): unknown[] {
  return parseAllDocuments(text, { version }).map((doc) => doc.toJS() as unknown);
}

const python = spawnSync('python3', ['-c', 'import yaml'], { encoding: 'utf8' });
const pyYamlMissing = python.status === 0 ? '' : 'python3 with PyYAML (Debian python3-yaml) is not installed';

describe('YAML every reader reads alike', () => {
  const text = whole(dumpYaml(DUMP));
  const expected = [DUMP.lists[0], ...((DUMP.lists[0]?.['items'] as unknown[]) ?? []), DUMP.lists[1]].map((o) =>
    (o as { kind: string }).kind.endsWith('List') ? { ...(o as object), items: [] } : o,
  );

  it('the yaml package in YAML 1.2 and in YAML 1.1', () => {
    expect(readYaml(text, '1.2')).toEqual(expected);
    expect(readYaml(text, '1.1')).toEqual(expected);
  });

  it.skipIf(pyYamlMissing !== '' && process.env['CI'] !== 'true')(`PyYAML (YAML 1.1) ${pyYamlMissing}`, () => {
    const read = execFileSync('python3', ['-c', 'import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(sys.stdin))))'], {
      input: text,
      encoding: 'utf8',
    });
    expect(JSON.parse(read)).toEqual(expected);
  });

  it('doctor -f reads it back, the dump time from its first line', async () => {
    const read = await parseManifest(Buffer.from(text), 'dump.yaml');
    expect(read.objects).toHaveLength(AMBIGUOUS.length);
    expect(read.dumpTakenAt?.toISOString()).toBe('2026-12-06T00:00:00.000Z');
  });
});

describe('JSON', () => {
  it('one compact document, one object per line, that doctor -f reads', async () => {
    const text = whole(dumpJson(DUMP));
    expect(text).not.toMatch(/\n {2}/);
    expect(text.split('\n').length).toBeLessThan(AMBIGUOUS.length + 8);
    const read = await parseManifest(Buffer.from(text), 'dump.json');
    expect(read.objects).toHaveLength(AMBIGUOUS.length);
    expect(read.dumpTakenAt?.toISOString()).toBe('2026-12-06T00:00:00.000Z');
  });
});

describe('a stream cut short says so, at every point, and doctor -f refuses it', () => {
  for (const [format, writer] of [
    ['yaml', dumpYaml],
    ['json', dumpJson],
  ] as const) {
    const total = [...writer(DUMP).pieces].length;
    it.each(Array.from({ length: total }, (_, i) => i))(`${format}, cut after %i pieces`, async (taken) => {
      const stream = writer(DUMP);
      const pieces = stream.pieces[Symbol.iterator]();
      let text = '';
      for (let i = 0; i < taken; i++) text += (pieces.next().value as string | undefined) ?? '';
      text += stream.cut('interrupted by SIGTERM');
      if (format === 'json') expect(incompleteDumpReason(text, JSON.parse(text) as unknown)).toBe('interrupted by SIGTERM');
      else expect(incompleteDumpReason(text)).toBe('interrupted by SIGTERM');
      expect(text.startsWith(format === 'json' ? '{"$comment":"inferencecache dump taken ' : '# inferencecache dump taken ')).toBe(true);
      await expect(parseManifest(Buffer.from(text), 'dump')).rejects.toThrow(
        'dump is an incomplete dump (interrupted by SIGTERM): take the dump again',
      );
    });
  }

  it('a complete stream has nothing to add', () => {
    for (const writer of [dumpYaml, dumpJson]) {
      const stream = writer(DUMP);
      whole(stream);
      expect(stream.cut('late')).toBe('');
    }
  });
});
