// What -f names: files, folders (their manifests in name order), standard input; what it refuses
// without blocking: a FIFO, a device, more than the cap, standard input twice.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../src/files/input-error.ts';
import { readManifests } from '../../../src/files/manifests.ts';
import { OPERATOR_FILES } from '../../../src/files/operator-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'icd-manifests-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pod = (name: string) => `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\n`;
const signal = new AbortController().signal;
const names = async (paths: string[], stdin?: string) => {
  const read = await readManifests(paths, stdin === undefined ? undefined : Readable.from([Buffer.from(stdin)]), signal);
  return read.files.flatMap((f) => f.objects.map((o) => (o.value['metadata'] as { name: string }).name));
};
const refusal = async (paths: string[], stdin?: AsyncIterable<Uint8Array>) => {
  const err = await readManifests(paths, stdin, signal).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  return (err as Error).message;
};

describe('readManifests', () => {
  it("reads a folder's .yaml, .yml and .json files in name order, and nothing else in it", async () => {
    const folder = join(dir, 'folder');
    mkdirSync(join(folder, 'sub.yaml'), { recursive: true });
    writeFileSync(join(folder, 'b.yml'), pod('b'));
    writeFileSync(join(folder, 'a.yaml'), pod('a'));
    writeFileSync(join(folder, 'c.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'c' } }));
    writeFileSync(join(folder, 'notes.txt'), 'not a manifest');
    expect(await names([folder])).toEqual(['a', 'b', 'c']);
  });

  it('reads files and standard input in the order named', async () => {
    writeFileSync(join(dir, 'x.yaml'), pod('x'));
    expect(await names([join(dir, 'x.yaml'), '-'], pod('from-stdin'))).toEqual(['x', 'from-stdin']);
  });

  it('refuses a FIFO, a device and a missing file by what they are, at once', async () => {
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    expect(await refusal([fifo])).toMatch(/fifo\.yaml": it is a FIFO, not a regular file/);
    expect(await refusal(['/dev/zero'])).toMatch(/"\/dev\/zero": it is a character device/);
    expect(await refusal([join(dir, 'missing.yaml')])).toMatch(/missing\.yaml": no such file or folder$/);
  });

  it('refuses more than the cap, in one file or in all of them, and on standard input', async () => {
    const cap = OPERATOR_FILES.manifest.maxBytes;
    const half = join(dir, 'half.json');
    writeFileSync(half, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'h' }, padding: 'x'.repeat(cap / 2) }));
    expect(await refusal([half, half])).toBe(`the files named by -f hold more than ${cap} bytes in all, more than the doctor reads`);
    const big = join(dir, 'big.yaml');
    writeFileSync(big, Buffer.alloc(cap + 1, 0x23));
    expect(await refusal([big])).toMatch(/holds \d+ bytes, more than a manifest may/);
    const endless = Readable.from(
      (function* () {
        for (;;) yield Buffer.alloc(1024 * 1024, 0x23);
      })(),
    );
    expect(await refusal(['-'], endless)).toBe(`standard input holds more than a manifest may (${cap} bytes)`);
  });

  it('refuses standard input twice, standard input when there is none, and a folder without manifests', async () => {
    expect(await refusal(['-', '-'], Readable.from([]))).toMatch(/given more than once/);
    expect(await refusal(['-'])).toMatch(/no standard input/);
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(await refusal([empty])).toMatch(/holds no \.yaml, \.yml or \.json file/);
  });

  it('ends a standard input that never ends when the run is stopped', async () => {
    const stop = new AbortController();
    const never = Readable.from(
      (async function* () {
        await new Promise(() => undefined);
        yield Buffer.alloc(0);
      })(),
    );
    setTimeout(() => stop.abort(new Error('interrupted by SIGTERM')), 100);
    const err = await readManifests(['-'], never, stop.signal).catch((e: unknown) => e);
    expect((err as Error).message).toBe('reading the files named by -f was cut short: interrupted by SIGTERM');
  });
});
