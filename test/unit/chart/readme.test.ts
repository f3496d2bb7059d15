// chart/README.md's values table and values.yaml stay one list: the table names exactly the keys
// values.yaml documents (a `# --` comment right above a key marks it), in the same order, and shows the
// default values.yaml holds wherever that default is a scalar or empty.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHART_DIR } from '../../support/helm.ts';

const valuesText = readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8');
const values = parse(valuesText) as Record<string, unknown>;
const readme = readFileSync(join(CHART_DIR, 'README.md'), 'utf8');

/** Dotted paths of the keys with a `# --` comment block right above them, in file order. */
function documentedKeys(text: string): string[] {
  const keys: string[] = [];
  const parents: { indent: number; key: string }[] = [];
  let documented = false;
  for (const line of text.split('\n')) {
    const comment = /^\s*#\s?(.*)$/.exec(line);
    if (comment !== null) {
      if (comment[1]?.startsWith('-- ') === true) documented = true;
      continue;
    }
    const entry = /^( *)([^\s#:-][^:]*):(\s|$)/.exec(line);
    const indent = entry?.[1]?.length;
    const key = entry?.[2];
    if (indent === undefined || key === undefined) {
      documented = false;
      continue;
    }
    while ((parents.at(-1)?.indent ?? -1) >= indent) parents.pop();
    if (documented) keys.push([...parents.map((p) => p.key), key].join('.'));
    parents.push({ indent, key });
    documented = false;
  }
  return keys;
}

/** Dotted paths of every leaf of a values tree (an empty map or list is a leaf). */
function leaves(node: unknown, path: string[] = []): string[] {
  if (typeof node !== 'object' || node === null || Array.isArray(node) || Object.keys(node).length === 0) return [path.join('.')];
  return Object.entries(node).flatMap(([key, child]) => leaves(child, [...path, key]));
}

/** The rows of the README's `## Values` table: key and default cell. */
function tableRows(text: string): { key: string; defaultCell: string }[] {
  const section = text.split(/^## /m).find((s) => s.startsWith('Values\n')) ?? '';
  return [...section.matchAll(/^\| `([^`]+)` \| (.+?) \| .+ \|$/gm)].map((m) => ({ key: m[1] ?? '', defaultCell: m[2] ?? '' }));
}

/** The value at a dotted path of the values tree. */
function valueAt(path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], values);
}

/** How the table writes a default it can state in full; undefined for a non-empty map or list. */
function written(value: unknown): string | undefined {
  if (value === '') return '""';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : undefined;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length === 0 ? '{}' : undefined;
  return String(value);
}

describe('chart/README.md values table', () => {
  const documented = documentedKeys(valuesText);

  it('every value in values.yaml falls under a documented key', () => {
    const undocumented = leaves(values).filter((leaf) => !documented.some((key) => leaf === key || leaf.startsWith(`${key}.`)));
    expect(undocumented).toEqual([]);
  });

  it('lists exactly the documented keys, in the order of values.yaml', () => {
    expect(documented).toContain('serverTLS.enabled');
    expect(tableRows(readme).map((r) => r.key)).toEqual(documented);
  });

  it('shows the default of values.yaml for every scalar or empty value', () => {
    const wrong = tableRows(readme).flatMap(({ key, defaultCell }) => {
      const want = written(valueAt(key));
      return want === undefined || defaultCell.startsWith(`\`${want}\``) ? [] : [`${key}: ${defaultCell}, values.yaml has ${want}`];
    });
    expect(wrong).toEqual([]);
  });
});
