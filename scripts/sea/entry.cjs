// The first code the single executable runs (scripts/build-exe.ts injects it with the bundle). Node's
// single-executable applications start one CommonJS script; the bundle is ES modules split into lazy
// chunks, which is what keeps `--version` from loading the Kubernetes and gRPC clients. So the bundle's
// files travel as the executable's assets, unchanged, and this script serves them to Node's own ES
// module loader under one made-up folder: every chunk is still read only when it is first imported.
'use strict';

// The loader constant below is marked experimental, and Node would say so on stderr before
// src/main.ts drops such warnings: in a pod, stderr holds the report.
process.removeAllListeners('warning');

const { getAsset } = require('node:sea');
const { registerHooks } = require('node:module');
const vm = require('node:vm');

/**
 * The made-up folder the bundle's files are served under. A file: URL, so that the bundle's
 * `createRequire(import.meta.url)` accepts it (it only ever requires Node's own modules). No file is
 * read from it: the hooks answer first.
 */
const ROOT = 'file:///inferencecache-executable/';

const inBundle = (url) => typeof url === 'string' && url.startsWith(ROOT);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const relative = specifier.startsWith('./') || specifier.startsWith('../');
    if (inBundle(specifier) || (relative && inBundle(context.parentURL))) {
      const url = new URL(specifier, context.parentURL ?? ROOT).href;
      if (inBundle(url)) return { url, format: 'module', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!inBundle(url)) return nextLoad(url, context);
    // getAsset throws for a name that is not among the assets: a chunk the build left out fails loudly.
    return { format: 'module', source: getAsset(url.slice(ROOT.length), 'utf8'), shortCircuit: true };
  },
});

// The main script's own import() can only load Node's modules; a script compiled with the main
// context's default loader can load any module the hooks above resolve.
vm.runInThisContext(`import(${JSON.stringify(`${ROOT}inferencecache.mjs`)})`, {
  filename: 'inferencecache-executable-entry',
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
}).catch((err) => {
  process.stderr.write(`error: the executable could not start its bundle: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(3);
});
