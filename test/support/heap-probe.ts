// The heap probe (heap-probe.mjs) as the tests use it: the Node flags that load it, the variable that
// names its file, and its readings.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** How a process under test loads the probe: these flags before the script, the file in this variable. */
export const HEAP_PROBE = {
  nodeFlags: ['--expose-gc', '--import', resolve(import.meta.dirname, 'heap-probe.mjs')],
  env: 'HEAP_PROBE_FILE',
} as const;

/** One reading, in bytes, after a full collection. */
export interface HeapReading {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

/** The readings written so far (none before the first signal). */
export function readHeapProbes(file: string): HeapReading[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as HeapReading);
}
