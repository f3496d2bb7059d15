// Bundles the CLI for Node into dist/: the entry `dist/inferencecache.mjs` (the package's command) and
// the chunks it imports under `dist/chunks/`, every dependency inside, so that it runs with no
// node_modules beside it. esbuild's code splitting puts what only some commands use in chunks of their
// own, and Node's ESM loader reads a chunk only when it is first imported: `--version`, `--help` and
// `codes` never load the Kubernetes, gRPC and HTTP clients, and a `--config-only` run never the gRPC one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PACKAGE } from '../dev/package.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';

const root = `${PROJECT_ROOT}/`;
/** The entry: the package's command (`bin` in package.json), and what the image runs. */
const outfile = `${root}dist/inferencecache.mjs`;
/** The chunks' folder, beside the entry. */
const chunkDir = `${root}dist/chunks`;
/**
 * How long the chunks of an earlier build are kept. A process started from that build imports its
 * chunks when it first needs them, so deleting them at once would break a run (a test, the demo)
 * that is still going while the bundle is rebuilt.
 */
const KEEP_EARLIER_CHUNKS_MS = 15 * 60 * 1000;

// INFERENCECACHE_COMMIT names the commit where there is no .git (the image build passes it in).
let commit = process.env.INFERENCECACHE_COMMIT || 'unknown';
if (!process.env.INFERENCECACHE_COMMIT) {
  try {
    commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    // Not a git checkout (e.g. a source tarball): the version still identifies the build.
  }
}

/**
 * Marks the Kubernetes client's own modules free of side effects, which its package.json does not
 * declare: its index re-exports some 800 generated API and model modules, and without the mark esbuild
 * keeps every one, although the doctor uses only the kubeconfig and its authentication (1.4 MB of
 * source that every run compiled and initialised, about 8 MiB of RSS). Only the client's own files are
 * marked; its dependencies are bundled as they declare themselves.
 */
const clientNodeWithoutSideEffects = {
  name: 'client-node-without-side-effects',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'resolved-by-plugin') return undefined;
      const inClient = args.path.startsWith('@kubernetes/client-node') || args.importer.includes('/node_modules/@kubernetes/client-node/');
      if (!inClient) return undefined;
      const resolved = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'resolved-by-plugin',
      });
      if (resolved.errors.length > 0 || !resolved.path.includes('/node_modules/@kubernetes/client-node/')) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};

const { outputFiles } = await build({
  entryPoints: { inferencecache: `${root}src/main.ts` },
  outdir: `${root}dist`,
  write: false,
  splitting: true,
  entryNames: '[name]',
  chunkNames: 'chunks/chunk-[hash]',
  // .mjs, not .js: the image has no package.json to say that the files are ES modules.
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  plugins: [clientNodeWithoutSideEffects],
  logLevel: 'warning',
  define: {
    __INFERENCECACHE_VERSION__: JSON.stringify(PACKAGE.version),
    __INFERENCECACHE_COMMIT__: JSON.stringify(commit),
    // The one statement of the Node major is package.json's engines; src/main.ts refuses older ones.
    __INFERENCECACHE_NODE_MAJOR__: String(PACKAGE.nodeMajor),
  },
  banner: {
    // Some bundled CommonJS dependencies call require(); give each ESM chunk one.
    js: "import { createRequire as __icCreateRequire } from 'node:module';\nconst require = __icCreateRequire(import.meta.url);",
  },
});

const entry = outputFiles.find((file) => file.path === outfile);
if (entry === undefined) throw new Error(`esbuild wrote no ${outfile}`);
mkdirSync(chunkDir, { recursive: true });
// The chunks first and the entry last, each written beside its place and renamed into it: a process
// starting meanwhile runs either the earlier entry, whose chunks are all still there, or this one,
// whose chunks are all in place, and never reads a file half written.
for (const file of [...outputFiles.filter((f) => f !== entry), entry]) {
  const contents = file === entry ? Buffer.concat([Buffer.from('#!/usr/bin/env node\n'), file.contents]) : file.contents;
  const partial = `${file.path}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, file.path);
}
const written = new Set(outputFiles.map((file) => file.path));
for (const name of readdirSync(chunkDir)) {
  const file = join(chunkDir, name);
  const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
  if (!written.has(file) && Date.now() - mtimeMs > KEEP_EARLIER_CHUNKS_MS) rmSync(file, { force: true });
}
