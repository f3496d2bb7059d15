// Loaded with `node --import` into each benchmarked process: at exit it writes what the process used
// (CPU, peak RSS) to the file named by BENCH_USAGE_FILE. Bench support only; never bundled.
//
// The peak is the process's own: VmHWM of /proc/self/status, the high-water mark of the memory the
// program mapped after exec. getrusage's maxRSS is not: Linux carries the parent's high-water mark
// over fork and exec into the child's, so a child of a large parent (the bench, a test runner) would
// report at least the parent's peak. Where /proc is missing, maxRSS is all there is.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.BENCH_USAGE_FILE;

/** VmHWM in KiB, or undefined without /proc. */
function ownPeakKiB() {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib);
  } catch {
    return undefined;
  }
}

if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({ userMs: usage.userCPUTime / 1000, systemMs: usage.systemCPUTime / 1000, peakRssKiB: ownPeakKiB() ?? usage.maxRSS }),
    );
  });
}
