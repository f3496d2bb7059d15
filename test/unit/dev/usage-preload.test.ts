// scripts/bench/usage-preload.mjs, which the scale bench and the scale test load into the processes they
// measure: the peak RSS it writes is the child's own, not the high-water mark Linux carries over from
// the parent through fork and exec (getrusage's maxRSS), so a large parent cannot inflate it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const PRELOAD = resolve(import.meta.dirname, '../../../scripts/bench/usage-preload.mjs');
const dir = mkdtempSync(join(tmpdir(), 'icd-usage-preload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the preload writes for `node -e script`, started by this process. */
function usageOf(script: string): { userMs: number; systemMs: number; peakRssKiB: number } {
  const file = join(dir, `usage-${Math.random().toString(36).slice(2)}.json`);
  const run = spawnSync(process.execPath, ['--import', PRELOAD, '-e', script], {
    env: { PATH: process.env['PATH'] ?? '', BENCH_USAGE_FILE: file },
    encoding: 'utf8',
  });
  expect(run.status).toBe(0);
  return JSON.parse(readFileSync(file, 'utf8')) as { userMs: number; systemMs: number; peakRssKiB: number };
}

describe.skipIf(process.platform !== 'linux')('the usage preload', () => {
  it("reports a child's own peak, however large its parent is", () => {
    const parent = Buffer.alloc(400 * 2 ** 20, 1); // 400 MiB resident in this process
    const idle = usageOf('');
    const grown = usageOf('globalThis.held = Buffer.alloc(150 * 2 ** 20, 1)');
    expect(parent.length).toBeGreaterThan(0);
    expect(idle.peakRssKiB / 1024).toBeLessThan(150);
    expect((grown.peakRssKiB - idle.peakRssKiB) / 1024).toBeGreaterThan(140);
    expect(grown.peakRssKiB / 1024).toBeLessThan(300);
    expect(grown.userMs + grown.systemMs).toBeGreaterThan(0);
  });
});
