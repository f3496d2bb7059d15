// Loaded with `node --expose-gc --import` into a long-running process under test (the monitor's leak
// test): on SIGUSR2 it collects all garbage and appends what the process then holds, one JSON line,
// to the file named by HEAP_PROBE_FILE. What survives a full collection is what the process keeps;
// its RSS also holds the heap V8 has grown and not returned, which a leak test cannot tell from a leak.
// Test support only; never bundled.
import { appendFileSync } from 'node:fs';

const file = process.env.HEAP_PROBE_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    appendFileSync(file, `${JSON.stringify({ rss, heapUsed, external, arrayBuffers })}\n`);
  });
}
