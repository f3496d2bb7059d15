// Preloaded (`node --require`) by test/process/bundle-startup.test.ts: a module hook that only watches
// Node's ESM loader read the bundle's files, records each one (its path relative to the entry's folder,
// its size, the modules esbuild names in it), and writes the list as JSON to $CHUNK_TRACE_FILE when the
// process exits.
const { registerHooks } = require('node:module');
const { writeFileSync } = require('node:fs');
const { dirname, relative } = require('node:path');
const { fileURLToPath } = require('node:url');

/** The folder of the program being run: the bundle's entry. */
const bundleDir = dirname(process.argv[1]);
const loaded = [];
registerHooks({
  load(url, context, nextLoad) {
    const result = nextLoad(url, context);
    if (url.startsWith('file:')) {
      const source = String(result.source);
      const modules = [...source.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((m) => m[1]);
      loaded.push({ name: relative(bundleDir, fileURLToPath(url)), bytes: Buffer.byteLength(source), modules });
    }
    return result;
  },
});
process.on('exit', () => writeFileSync(process.env.CHUNK_TRACE_FILE, JSON.stringify(loaded)));
