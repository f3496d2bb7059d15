// Loaded with `node --import` into each benchmarked process: at exit it writes what the process used
// (CPU, peak RSS) to the file named by BENCH_USAGE_FILE. Bench support only; never bundled.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({ userMs: usage.userCPUTime / 1000, systemMs: usage.systemCPUTime / 1000, maxRssKiB: usage.maxRSS }),
    );
  });
}
