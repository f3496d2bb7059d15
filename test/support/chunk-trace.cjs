// Preloaded (`node --require`) by test/process/bundle-startup.test.ts: wraps the module hooks the
// bundle's loader registers, records every chunk it compiles (name, size, the modules esbuild names in
// it), and writes the list as JSON to $CHUNK_TRACE_FILE when the process exits.
const nodeModule = require('node:module');
const { writeFileSync } = require('node:fs');

const loaded = [];
const register = nodeModule.registerHooks;
nodeModule.registerHooks = (hooks) =>
  register({
    ...hooks,
    load(url, context, nextLoad) {
      const result = hooks.load(url, context, nextLoad);
      const name = url.split('?chunk=')[1];
      if (name !== undefined) {
        const source = String(result.source);
        const modules = [...source.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((m) => m[1]);
        loaded.push({ name, bytes: Buffer.byteLength(source), modules });
      }
      return result;
    },
  });
nodeModule.syncBuiltinESMExports();
process.on('exit', () => writeFileSync(process.env.CHUNK_TRACE_FILE, JSON.stringify(loaded)));
