// The Node flags the image runs the bundle with (its ENTRYPOINT, which test/unit/dockerfile.test.ts
// keeps equal to this list), and the environment it sets (its ENV); the benchmark and the tests that
// stand in for the image use the same.
//
// --max-semi-space-size=4: V8's young generation may otherwise grow to 2 × 16 MiB semi-spaces (plus
// the new large-object space) during the run's one synchronous burst, judging and rendering, where
// some 16,000 findings survive their first scavenge. Capped at 4 MiB, the peak RSS of a run against
// the 20,000-pod scale scenario falls from about 155 (human) and 180 MiB (JSON) to about 125 MiB, at no
// measurable cost in CPU (docs/performance.md). The flag cannot be set from inside the program: V8
// sizes the heap before any JavaScript runs.
//
// --no-warnings: in a pod, stderr ends up in the log that holds the JSON report, so it must hold
// nothing but the doctor's own lines. src/main.ts removes Node's printing of warnings as its first
// step, which is the guard that counts (a workstation runs the bundle with a bare `node`); this flag
// also covers what happens before that step, such as a warning Node raises for a flag it was given
// through NODE_OPTIONS while it starts.
//
// MALLOC_ARENA_MAX=1: glibc gives each thread that allocates its own malloc arena and seldom hands an
// arena's freed memory back. V8's background threads (concurrent marking, the optimising compiler)
// allocate there while 300 MB of list pages are parsed, and at 100,000 pods that memory outside the
// JavaScript heap varied from 30 to 65 MB from run to run. With one arena the peak RSS at that size
// fell from a median of 172 to 159 MiB over seven runs each, CPU unchanged (docs/performance.md).

/** Flags between `node` and the bundle in the image's ENTRYPOINT. */
export const IMAGE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--no-warnings'];

/** The environment the image sets (its ENV), beside what the pod adds. */
export const IMAGE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1' };
