// Bundles the CLI into one ESM file for Node 24 that runs with no node_modules beside it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
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

await build({
  entryPoints: [`${root}src/main.ts`],
  outfile: `${root}dist/inferencecache.mjs`,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'esm',
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: {
    __INFERENCECACHE_VERSION__: JSON.stringify(version),
    __INFERENCECACHE_COMMIT__: JSON.stringify(commit),
  },
  banner: {
    // Some bundled CommonJS dependencies call require(); give the ESM bundle one.
    js: "#!/usr/bin/env node\nimport { createRequire as __icCreateRequire } from 'node:module';\nconst require = __icCreateRequire(import.meta.url);",
  },
});
