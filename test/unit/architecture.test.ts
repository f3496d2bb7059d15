// The house rules of docs/architecture.md#house that a reader of src/ can check: data flows one way (no layer imports a
// layer above it, and peers do not import each other; inside cluster/ the same between its rooms), no
// module reaches itself through its imports, and only main.ts touches `process`.
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
  // A full garbage collection on demand: main.ts hands it to the runs, which ask for it before judging.
  'full-collection.ts': 0,
  go: 0,
  text: 0,
  // The protobuf wire format: the list reader of the cluster and the gRPC health probe read with it.
  protobuf: 0,
  // Reading the files an operator names, bounded: the cluster, the probes and the run use it.
  files: 1,
  // The Prometheus exposition formats and the catalogue of the monitor's metrics (docs/codes.md names a series per code).
  metrics: 1,
  report: 2,
  cluster: 3,
  probes: 3,
  checks: 4,
  // Suppression rules, applied to the checks' findings; the command line parses them.
  suppress: 5,
  cli: 6,
  // One doctor run: the judging pipeline, its sources (the cluster, the files), the probe plan, the dump.
  doctor: 7,
  // The monitor: doctor runs on a schedule, the last one served as metrics on its own port.
  monitor: 8,
  // The commands once parsed: they write what a run gives them.
  commands: 9,
  'app.ts': 10,
  'main.ts': 11,
};

/**
 * The rooms of `src/cluster/`, lowest first, under the same rule as the layers: how objects arrive on
 * the wire (`encoding`), what each Kind is (`kinds`), talking to the API server (`transport`) and the
 * state the checks judge (`state`), and the one gathering pass that fills it (`gather`).
 */
const CLUSTER_ROOM_RANK: Readonly<Record<string, number>> = {
  encoding: 0,
  kinds: 1,
  transport: 2,
  state: 2,
  gather: 3,
};

/** The layer of a file under src/: its top-level folder, or the file itself at the top. */
function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0] ?? '';
}

/** The room of a file under src/cluster/: its folder there; '' for a file of another layer. */
function roomOf(file: string): string {
  const [layer, room, rest] = relative(SRC, file).split('/');
  return layer === 'cluster' && rest !== undefined ? (room ?? '') : layer === 'cluster' ? (room ?? '') : '';
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

/** Whether importing from rank `a` into rank `b` breaks the rule (upward, or between peers). */
function breaks(ranks: Readonly<Record<string, number>>, from: string, to: string): boolean {
  const [a, b] = [ranks[from], ranks[to]];
  return a === undefined || b === undefined || b >= a;
}

/** The imports that break the layering, or the rooms of cluster/, as `from → to` lines. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, source] of files) {
    const from = layerOf(file);
    for (const spec of importsOf(source)) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const to = layerOf(target);
      if (to !== from) {
        if (breaks(LAYER_RANK, from, to)) out.push(`${relative(SRC, file)} → ${spec} (${from} may not import ${to})`);
        continue;
      }
      const [here, there] = [roomOf(file), roomOf(target)];
      if (from === 'cluster' && here !== there && breaks(CLUSTER_ROOM_RANK, here, there)) {
        out.push(`${relative(SRC, file)} → ${spec} (cluster/${here} may not import cluster/${there})`);
      }
    }
  }
  return out.sort();
}

/**
 * The import cycles of `files` (every kind of import counts, type-only and dynamic ones too): each
 * strongly connected set of two or more modules, or a module importing itself, as its sorted paths.
 */
function cycles(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, source] of files) {
    const targets = importsOf(source)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(dirname(file), spec))
      .filter((target) => files.has(target));
    edges.set(file, targets);
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.map((f) => relative(SRC, f)).sort());
  };
  for (const file of files.keys()) if (!index.has(file)) visit(file);
  return found.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
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
  it('every top-level folder and file of src/ has a layer, and every file of cluster/ a room', () => {
    const unknown = [...new Set([...SOURCES.keys()].map(layerOf))].filter((layer) => LAYER_RANK[layer] === undefined);
    expect(unknown).toEqual([]);
    const roomless = [...SOURCES.keys()]
      .filter((file) => layerOf(file) === 'cluster' && CLUSTER_ROOM_RANK[roomOf(file)] === undefined)
      .map((file) => relative(SRC, file));
    expect(roomless).toEqual([]);
  });

  it('ranks are whole numbers: a layer that fits nowhere is a sign the layering is wrong', () => {
    expect([...Object.values(LAYER_RANK), ...Object.values(CLUSTER_ROOM_RANK)].filter((rank) => !Number.isInteger(rank))).toEqual([]);
  });

  it('no module imports a layer above its own, or a peer layer; inside cluster/ no room a room above it, or a peer', () => {
    expect(violations(SOURCES)).toEqual([]);
  });

  it('the rule catches an upward import, a peer import, a type-only one and one between the rooms of cluster/', () => {
    const at = (path: string) => join(SRC, path);
    const planted = new Map([
      [at('go/x.ts'), "import { render } from '../report/render/human.ts';"],
      [at('probes/y.ts'), "import type { ClusterState } from '../cluster/state/state.ts';"],
      [at('checks/z.ts'), "export { parse } from '../cli/parse.ts';\nconst m = await import('../doctor/pipeline.ts');"],
      [at('checks/ok.ts'), "import { goQuote } from '../go/quote.ts';\nimport type { Pod } from '../cluster/kinds/pod.ts';"],
      [at('cluster/kinds/w.ts'), "import type { ClusterState } from '../state/state.ts';\nimport { obj } from '../encoding/wire.ts';"],
      [at('cluster/state/v.ts'), "import { KubeApi } from '../transport/kube-api.ts';"],
    ]);
    expect(violations(planted)).toEqual([
      'checks/z.ts → ../cli/parse.ts (checks may not import cli)',
      'checks/z.ts → ../doctor/pipeline.ts (checks may not import doctor)',
      'cluster/kinds/w.ts → ../state/state.ts (cluster/kinds may not import cluster/state)',
      'cluster/state/v.ts → ../transport/kube-api.ts (cluster/state may not import cluster/transport)',
      'go/x.ts → ../report/render/human.ts (go may not import report)',
      'probes/y.ts → ../cluster/state/state.ts (probes may not import cluster)',
    ]);
  });
});

describe('no import cycles', () => {
  it('no module of src/ reaches itself through its imports, type-only and dynamic ones included', () => {
    expect(cycles(SOURCES)).toEqual([]);
  });

  it('the search finds a cycle through a type-only import, a dynamic one, and a module importing itself', () => {
    const at = (path: string) => join(SRC, path);
    const planted = new Map([
      [at('doctor/a.ts'), "import { b } from './b.ts';"],
      [at('doctor/b.ts'), "import type { C } from './c.ts';"],
      [at('doctor/c.ts'), "const a = await import('./a.ts');"],
      [at('doctor/d.ts'), "import { a } from './a.ts';"],
      [at('probes/e.ts'), "export { e } from './e.ts';"],
      [at('probes/f.ts'), "import { g } from './g.ts';"],
      [at('probes/g.ts'), "import { e } from './e.ts';"],
    ]);
    expect(cycles(planted)).toEqual([['doctor/a.ts', 'doctor/b.ts', 'doctor/c.ts'], ['probes/e.ts']]);
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
