// The first lines of the bundle; `scripts/build.mjs` fills in the chunks. The program is split into
// chunks (esbuild's code splitting), each stored compressed in this one file and compiled only when
// first imported: `--version`, `--help` and `codes` never pay for the Kubernetes, gRPC and HTTP
// clients, and a `--config-only` run never for the probes. Chunks import each other by relative
// names, which the module hooks below resolve to this file's own chunks, and nothing else.
import * as nodeModule from 'node:module';
import { brotliDecompressSync } from 'node:zlib';

/** The Node major the bundle is built for (`engines` in package.json): the image's runtime. */
const MINIMUM_NODE_MAJOR = __INFERENCECACHE_MINIMUM_NODE_MAJOR__;
/** File name → the chunk's source, brotli-compressed, base64. */
const CHUNKS = __INFERENCECACHE_CHUNKS__;
/** The chunk that runs the program (`src/main.ts`). */
const ENTRY = __INFERENCECACHE_ENTRY__;

const chunkUrl = `${import.meta.url}?chunk=`;

// An older Node lacks what the program uses (the module hooks below, to begin with): one line, exit 3.
if (!(Number.parseInt(process.versions.node, 10) >= MINIMUM_NODE_MAJOR)) {
  process.stderr.write(`inferencecache needs Node ${MINIMUM_NODE_MAJOR} or newer (this is v${process.versions.node})\n`);
  process.exit(3);
}

nodeModule.registerHooks({
  resolve(specifier, context, nextResolve) {
    const name = specifier.startsWith('./') ? specifier.slice(2) : undefined;
    if (name !== undefined && context.parentURL?.startsWith(chunkUrl) && Object.hasOwn(CHUNKS, name)) {
      return { url: `${chunkUrl}${name}`, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    const name = url.startsWith(chunkUrl) ? url.slice(chunkUrl.length) : undefined;
    if (name === undefined || !Object.hasOwn(CHUNKS, name)) return nextLoad(url, context);
    return { format: 'module', source: brotliDecompressSync(Buffer.from(CHUNKS[name], 'base64')), shortCircuit: true };
  },
});

await import(`${chunkUrl}${ENTRY}`);
