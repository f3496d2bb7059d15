// The full garbage collection between reading and judging (src/full-collection.ts): it runs, it leaves
// no `gc` in the program's global scope, and a doctor run asks the process for it once per attempt,
// after the objects are read and before anything of the report is written.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runApp } from '../../../src/app.ts';
import { collectingIO } from '../../support/app-io.ts';
import { getHeapStatistics } from 'node:v8';
import { LARGE_YOUNG_GENERATION_BYTES, WORTH_COLLECTING_BYTES, collectGarbage, collectionFor } from '../../../src/full-collection.ts';

const dir = mkdtempSync(join(tmpdir(), 'icd-full-collection-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('collectGarbage', () => {
  it('collects what is unreachable, as often as asked, without exposing gc to the program', () => {
    expect('gc' in globalThis).toBe(false);
    // The heap in use while a million objects are held; they are unreachable once this returns.
    const held = ((garbage: readonly { i: number }[]) => getHeapStatistics().used_heap_size + garbage.length * 0)(
      Array.from({ length: 1_000_000 }, (_, i) => ({ i })),
    );
    collectGarbage(0);
    expect(getHeapStatistics().used_heap_size).toBeLessThan(held - 10 * 2 ** 20);
    collectGarbage(0);
    collectGarbage();
    expect('gc' in globalThis).toBe(false);
  });

  it('leaves a heap smaller than the default threshold to V8: at the full scale scenario it holds 27–28 MiB', () => {
    expect(WORTH_COLLECTING_BYTES).toBeGreaterThan(28 * 2 ** 20);
    expect(WORTH_COLLECTING_BYTES).toBeLessThan(52 * 2 ** 20);
  });

  const MiB = 2 ** 20;
  it.each([
    ['the image at full size: small young generation, 28 MiB of heap', 8 * MiB, 28 * MiB, 'none'],
    ['the image at five times: 52 MiB of heap', 8 * MiB, 52 * MiB, 'full'],
    ['the image, heap exactly at the threshold', 8 * MiB, WORTH_COLLECTING_BYTES, 'full'],
    ['a bare node at full size: two 16 MiB semi-spaces', 32 * MiB, 28 * MiB, 'last-resort'],
    ['a bare node with a small heap still', 32 * MiB, 5 * MiB, 'last-resort'],
    ['a young generation exactly at the bound', LARGE_YOUNG_GENERATION_BYTES, 5 * MiB, 'none'],
  ] as const)('%s: %s', (_, young, used, want) => {
    expect(collectionFor(young, used)).toBe(want);
  });
});

describe('a doctor run', () => {
  it('asks for one full collection, after reading and before writing the report', async () => {
    const file = join(dir, 'objects.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: inferencecache.io/v1alpha1',
        'kind: CacheBackend',
        'metadata: {name: be, namespace: ns1, uid: be-uid}',
        'spec: {runtime: VLLM, engineSelector: {matchLabels: {app: engine}}}',
        '---',
        'apiVersion: v1',
        'kind: Pod',
        'metadata: {name: engine-1, namespace: ns1, uid: p-uid, labels: {app: engine}}',
        'spec: {containers: [{name: main, image: registry.test/app:v1}]}',
        '',
      ].join('\n'),
    );
    const writtenAtCollection: number[] = [];
    const { io, stdout } = collectingIO(['doctor', '-f', file, '--covers', 'all', '-o', 'json'], {
      collectGarbage: () => writtenAtCollection.push(stdout().length),
    });
    const code = await runApp(io);
    expect(code).toBe(1);
    expect(stdout()).toContain('"EP001"');
    expect(writtenAtCollection).toEqual([0]);
  });
});
