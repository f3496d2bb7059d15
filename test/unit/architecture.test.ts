// The house rules of docs/architecture.md#house that a reader of src/ can check: data flows one way (no layer imports a
// layer above it, and peers do not import each other), only main.ts touches `process`, and nothing
// runs at import time that reads the filesystem or the environment.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../dev/paths.ts';

const SRC = join(PROJECT_ROOT, 'src');

/**
 * The layers, lowest first. A module may import its own layer's modules and any layer of a lower rank;
 * two layers of the same rank are peers and may not import each other.
 */
const LAYER_RANK: Readonly<Record<string, number>> = {
  'version.ts': 0,
  go: 0,
  text: 0,
  // Reading the files an operator names, bounded: the cluster, the probes and the run use it.
  files: 0.5,
  report: 1,
  cluster: 2,
  probes: 2,
  checks: 3,
  // Suppression rules, applied to the checks' findings; the command line parses them.
  suppress: 3.5,
  cli: 4,
  // One doctor run: its attempts, the probe plan, the --wait loop, the written suppression rules.
  doctor: 5,
  'doctor-command.ts': 6,
  'dump-command.ts': 6.5,
  'app.ts': 7,
  'main.ts': 8,
};

/** The layer of a file under src/: its top-level folder, or the file itself at the top. */
function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0] ?? '';
}

/** Every import specifier of a TypeScript source: static, re-export, type-only and dynamic. */
function importsOf(source: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /(?:^|\n)\s*(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) if (m[1] !== undefined) found.add(m[1]);
  return [...found];
}

/** The imports that break the layering, as `from → to` lines. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, source] of files) {
    const from = layerOf(file);
    for (const spec of importsOf(source)) {
      if (!spec.startsWith('.')) continue;
      const to = layerOf(resolve(dirname(file), spec));
      if (to === from) continue;
      const [a, b] = [LAYER_RANK[from], LAYER_RANK[to]];
      if (a === undefined || b === undefined || b >= a) out.push(`${relative(SRC, file)} → ${spec} (${from} may not import ${to})`);
    }
  }
  return out.sort();
}

function sources(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && /\.(?:ts|mjs)$/.test(entry.name)) {
      const file = join(entry.parentPath, entry.name);
      files.set(file, readFileSync(file, 'utf8'));
    }
  }
  return files;
}

const SOURCES = sources(SRC);

describe('the layers of src/', () => {
  it('every top-level folder and file of src/ has a layer', () => {
    const unknown = [...new Set([...SOURCES.keys()].map(layerOf))].filter((layer) => LAYER_RANK[layer] === undefined);
    expect(unknown).toEqual([]);
  });

  it('no module imports a layer above its own, or a peer layer', () => {
    expect(violations(SOURCES)).toEqual([]);
  });

  it('the rule catches an upward import, a peer import and a type-only one', () => {
    const at = (path: string) => join(SRC, path);
    const planted = new Map([
      [at('go/x.ts'), "import { render } from '../report/render/index.ts';"],
      [at('probes/y.ts'), "import type { ClusterState } from '../cluster/state.ts';"],
      [at('checks/z.ts'), "export { parse } from '../cli/parse.ts';\nconst m = await import('../doctor/run.ts');"],
      [at('checks/ok.ts'), "import { goQuote } from '../go/quote.ts';\nimport type { Pod } from '../cluster/state.ts';"],
    ]);
    expect(violations(planted)).toEqual([
      'checks/z.ts → ../cli/parse.ts (checks may not import cli)',
      'checks/z.ts → ../doctor/run.ts (checks may not import doctor)',
      'go/x.ts → ../report/render/index.ts (go may not import report)',
      'probes/y.ts → ../cluster/state.ts (probes may not import cluster)',
    ]);
  });
});

describe('process and environment', () => {
  it('only main.ts touches process', () => {
    const touching = [...SOURCES]
      .filter(([file, source]) => layerOf(file) !== 'main.ts' && /\bprocess\s*[.[]/.test(source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
      .map(([file]) => relative(SRC, file));
    expect(touching).toEqual([]);
  });

  it('no production module names an environment variable that exists only for tests', () => {
    const testOnly = [...SOURCES].filter(([, source]) => /\bINFERENCECACHE_[A-Z_]+/.test(source)).map(([file]) => relative(SRC, file));
    expect(testOnly).toEqual([]);
  });
});

/**
 * The repository's folders of code and what each may import: the product imports only itself (and the
 * report's schema), the development tools the product and themselves, the scripts both of those; only
 * the tests may import anything.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  src: ['src', 'schema'],
  dev: ['dev', 'src', 'schema'],
  scripts: ['scripts', 'dev', 'src', 'schema'],
};

/** The relative imports of the files that reach a folder they may not, as `file → spec` lines. */
function foldersCrossed(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, source] of files) {
    const from = relative(PROJECT_ROOT, file).split('/')[0] ?? '';
    const allowed = MAY_IMPORT[from];
    if (allowed === undefined) continue;
    for (const spec of importsOf(source)) {
      if (!spec.startsWith('.')) continue;
      const to = relative(PROJECT_ROOT, resolve(dirname(file), spec)).split('/')[0] ?? '';
      if (!allowed.includes(to)) out.push(`${relative(PROJECT_ROOT, file)} → ${spec}`);
    }
  }
  return out.sort();
}

describe('the folders of the repository', () => {
  it('src, dev and scripts import only what they may (never test/)', () => {
    const all = new Map([...sources(SRC), ...sources(join(PROJECT_ROOT, 'dev')), ...sources(join(PROJECT_ROOT, 'scripts'))]);
    expect(foldersCrossed(all)).toEqual([]);
  });

  it('the rule catches a script or a dev module importing the tests, and the product importing dev', () => {
    const planted = new Map([
      [join(PROJECT_ROOT, 'scripts/x.ts'), "import { runBundle } from '../test/support/bundle.ts';"],
      [join(PROJECT_ROOT, 'dev/cluster/y.ts'), "const m = await import('../../test/support/helm.ts');"],
      [join(PROJECT_ROOT, 'src/z.ts'), "import { PROJECT_ROOT } from '../dev/paths.ts';"],
      [
        join(PROJECT_ROOT, 'scripts/ok.ts'),
        "import { PROJECT_ROOT } from '../dev/paths.ts';\nimport { VERSION } from '../src/version.ts';",
      ],
    ]);
    expect(foldersCrossed(planted)).toEqual([
      'dev/cluster/y.ts → ../../test/support/helm.ts',
      'scripts/x.ts → ../test/support/bundle.ts',
      'src/z.ts → ../dev/paths.ts',
    ]);
  });
});
