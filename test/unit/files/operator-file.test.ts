// The bounded reader of the operator's files: a regular file within its cap is read; anything else is
// refused by what it is, at once and without blocking (a FIFO nobody writes, a device, a socket, a
// directory), as is a file past its kind's cap, however its size is claimed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { FILE_CAPS_MARKERS, fileCapsMarkdown } from '../../../src/files/operator-file-markdown.ts';
import { OPERATOR_FILES, readOperatorFile } from '../../../src/files/operator-file.ts';
import { withRegion } from '../../../src/text/generated-region.ts';

const dir = mkdtempSync(join(tmpdir(), 'icd-opfile-'));
const fifo = join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);
const socketPath = join(dir, 'sock');
const socket = createServer();
await new Promise<void>((r) => socket.listen(socketPath, r));
afterAll(() => new Promise<void>((r) => socket.close(() => r())));

describe('readOperatorFile', () => {
  it('reads a regular file', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'abc\n');
    expect(await readOperatorFile(file, 'token')).toEqual({ ok: true, bytes: Buffer.from('abc\n') });
  });

  it('says a missing file is missing', async () => {
    expect(await readOperatorFile(join(dir, 'nothing'), 'token')).toEqual({ ok: false, missing: true, reason: 'ENOENT' });
  });

  it.each([
    ['a FIFO nobody writes', fifo, 'it is a FIFO, not a regular file'],
    ['/dev/zero', '/dev/zero', 'it is a character device, not a regular file'],
    ['/dev/null', '/dev/null', 'it is a character device, not a regular file'],
    ['a directory', dir, 'it is a directory, not a regular file'],
    ['a socket', socketPath, 'it is a socket, not a regular file'],
  ])('refuses %s by what it is, without blocking', async (_, path, reason) => {
    expect(await readOperatorFile(path, 'suppress-file')).toEqual({ ok: false, missing: false, reason });
  });

  it('refuses a file larger than its kind may be, and reads one at the cap', async () => {
    const cap = OPERATOR_FILES.token.maxBytes;
    const big = join(dir, 'big');
    writeFileSync(big, Buffer.alloc(cap + 1, 0x61));
    expect(await readOperatorFile(big, 'token')).toEqual({
      ok: false,
      missing: false,
      reason: `it holds ${cap + 1} bytes, more than a bearer token may (${cap})`,
    });
    const full = join(dir, 'full');
    writeFileSync(full, Buffer.alloc(cap, 0x61));
    const read = await readOperatorFile(full, 'token');
    expect(read.ok && read.bytes.length).toBe(cap);
  });

  it('reads a file that claims to be empty to its end (a /proc file), within the cap', async () => {
    const read = await readOperatorFile('/proc/self/status', 'pod-labels');
    expect(read.ok && read.bytes.toString('utf8')).toMatch(/^Name:/);
  });

  it('refuses a file that claims to be empty but holds more than the cap', async () => {
    const read = await readOperatorFile('/proc/self/smaps', 'token');
    expect(read).toMatchObject({ ok: false, reason: `it holds more than a bearer token may (${OPERATOR_FILES.token.maxBytes} bytes)` });
  });

  it('ends at once when its signal has already ended the run', async () => {
    const file = join(dir, 'token');
    const read = await readOperatorFile(file, 'token', AbortSignal.abort(new Error('interrupted by SIGTERM')));
    expect(read).toEqual({ ok: false, missing: false, reason: 'reading it was cut short: interrupted by SIGTERM' });
  });
});

describe("the README's table of size caps", () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

  it('is the one rendered from OPERATOR_FILES (run `npm run docs` after changing a cap)', () => {
    expect(withRegion(readme, FILE_CAPS_MARKERS, fileCapsMarkdown()), 'README.md is stale: run `npm run docs`').toBe(readme);
  });

  it('states every cap in a unit that reads exactly', () => {
    expect(fileCapsMarkdown()).toContain('| kubeconfig | `--kubeconfig`, each file of `$KUBECONFIG`, `~/.kube/config` | 4 MiB |');
    expect(fileCapsMarkdown()).toContain(
      '| bearer token | `--snapshot-token-file`, the mounted controller and ServiceAccount tokens | 64 KiB |',
    );
    expect(fileCapsMarkdown().split('\n')).toHaveLength(Object.keys(OPERATOR_FILES).length + 3);
  });
});
