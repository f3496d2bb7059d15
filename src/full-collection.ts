/**
 * A full garbage collection on demand, for the one moment a run knows much of its heap is garbage:
 * when every list has been read and judging begins. Reading a large cluster promotes the pages'
 * short-lived objects to V8's old generation, which no full collection has swept yet by then; left
 * alone, V8 collects it in the middle of judging and rendering, with the findings being made, and the
 * collection's own evacuation takes tens of MiB more for a moment. Collected first, judging starts on
 * the live state alone: at five times the scale scenario, peak RSS 131–135 MiB in ten runs against
 * 145–167 MiB without (docs/performance.md).
 *
 * A smaller heap is left alone: at the scale scenario's full size the heap holds 27–28 MiB when
 * judging begins (52 MiB at five times, 64–70 MiB at the Kubernetes envelope), the run peaks far
 * inside the chart's memory request, and a collection there would only cost CPU. Unless the young
 * generation has grown large, as it does under a bare `node` (two semi-spaces of 16 MiB, where the
 * image's `--max-semi-space-size=4` keeps them at 4): then the collection is V8's last-resort one,
 * which also shrinks the young generation. A bare run at the full scale scenario in an inference
 * cluster's shape peaked at 131–136 MiB with it, 157–171 MiB without.
 *
 * Node exposes the collector only under `--expose-gc`; that flag set at run time exposes it to the
 * contexts created after, so one new context hands it over. The run's own global scope never gains a
 * `gc`.
 *
 * @module
 */

import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The heap in use from which a collection before judging pays for itself. */
export const WORTH_COLLECTING_BYTES = 40 * 2 ** 20;

/** A young generation larger than this has grown its semi-spaces past the image's 4 MiB each. */
export const LARGE_YOUNG_GENERATION_BYTES = 16 * 2 ** 20;

/** V8's collector as `--expose-gc` gives it: a full collection, or the one `options` asks for. */
type Collector = (options?: { readonly type: 'major'; readonly execution: 'sync'; readonly flavor: 'regular' | 'last-resort' }) => void;

/** Which collection a heap calls for: none, a full one, or the last-resort one that also shrinks the young generation. */
export type Collection = 'none' | 'full' | 'last-resort';

/** The collection for a young generation of `youngBytes` and `usedBytes` of heap in use, collecting from `fromBytes`. */
export function collectionFor(youngBytes: number, usedBytes: number, fromBytes: number = WORTH_COLLECTING_BYTES): Collection {
  if (youngBytes > LARGE_YOUNG_GENERATION_BYTES) return 'last-resort';
  return usedBytes >= fromBytes ? 'full' : 'none';
}

let collector: Collector | null | undefined;

/** The isolate's collector, made once; null when this runtime will not give one. */
function fullCollector(): Collector | null {
  if (collector !== undefined) return collector;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    collector = typeof gc === 'function' ? (gc as Collector) : null;
  } catch {
    collector = null;
  }
  return collector;
}

/**
 * Makes the collection {@link collectionFor} says the heap calls for, when the runtime allows it;
 * otherwise does nothing.
 */
export function collectGarbage(fromBytes: number = WORTH_COLLECTING_BYTES): void {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
  const collection = collectionFor(young, getHeapStatistics().used_heap_size, fromBytes);
  if (collection === 'none') return;
  const gc = fullCollector();
  if (collection === 'full') gc?.();
  else gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
