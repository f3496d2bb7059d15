// Bundles the CLI into one ESM file for Node 24 that runs with no node_modules beside it: split into
// chunks that load only when a command needs them (see scripts/bundle/loader.mjs).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
/** The one file the build writes: the package's command, and what the image copies. */
const outfile = `${root}dist/inferencecache.mjs`;
const { version, engines } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
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
  entryPoints: [`${root}src/main.ts`],
  outdir: `${root}dist/chunks`,
  write: false,
  splitting: true,
  entryNames: 'main',
  chunkNames: 'chunk-[hash]',
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
    __INFERENCECACHE_VERSION__: JSON.stringify(version),
    __INFERENCECACHE_COMMIT__: JSON.stringify(commit),
  },
  banner: {
    // Some bundled CommonJS dependencies call require(); give each ESM chunk one.
    js: "import { createRequire as __icCreateRequire } from 'node:module';\nconst require = __icCreateRequire(import.meta.url);",
  },
});

// One file: the loader (scripts/bundle/loader.mjs), then every chunk compressed inside it.
const chunks = Object.fromEntries(
  outputFiles.map((file) => [
    basename(file.path),
    brotliCompressSync(file.contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }).toString('base64'),
  ]),
);
const minimumNodeMajor = Number.parseInt(/\d+/.exec(engines.node)?.[0] ?? '', 10);
if (!Number.isInteger(minimumNodeMajor)) throw new Error(`package.json engines.node ${JSON.stringify(engines.node)} names no Node major`);
const fill = (text, placeholder, value) => {
  const parts = text.split(placeholder);
  if (parts.length !== 2) throw new Error(`scripts/bundle/loader.mjs must name ${placeholder} exactly once (found ${parts.length - 1})`);
  return parts.join(value);
};
const loader = [
  ['__INFERENCECACHE_CHUNKS__', JSON.stringify(chunks)],
  ['__INFERENCECACHE_ENTRY__', JSON.stringify('main.js')],
  ['__INFERENCECACHE_MINIMUM_NODE_MAJOR__', String(minimumNodeMajor)],
].reduce((text, [placeholder, value]) => fill(text, placeholder, value), readFileSync(`${root}scripts/bundle/loader.mjs`, 'utf8'));
mkdirSync(`${root}dist`, { recursive: true });
writeFileSync(outfile, `#!/usr/bin/env node\n${loader}`);
