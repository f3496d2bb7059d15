/**
 * The one way the doctor reads a file an operator names (a flag, the chart, a kubeconfig): regular
 * files only, refused by what they are without blocking (a FIFO nobody writes, `/dev/zero`, a socket or
 * a directory would otherwise hang the run or fill its memory), at most a size cap per kind of file,
 * read under the run's deadline. A blocked read would also hold the process after it is told to exit:
 * Node waits for its file-system threads when it exits, so a FIFO opened the ordinary way keeps the
 * process alive until SIGKILL.
 *
 * @module
 */

import { constants, existsSync, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { describeError, fileErrorReason } from '../text/errors.ts';

/**
 * The kinds of file an operator names, each with the most it may hold and where such a file comes from
 * (for the README's table, rendered from here). The caps are far above any real file of the kind and
 * far below what would strain the run's memory.
 */
export const OPERATOR_FILES = {
  kubeconfig: { what: 'kubeconfig', maxBytes: 4 * 1024 * 1024, namedBy: '`--kubeconfig`, each file of `$KUBECONFIG`, `~/.kube/config`' },
  'kubeconfig-file': {
    what: 'file a kubeconfig names',
    maxBytes: 1024 * 1024,
    namedBy: "a kubeconfig's `certificate-authority`, `client-certificate`, `client-key` and `token-file`; the in-cluster CA",
  },
  token: {
    what: 'bearer token',
    maxBytes: 64 * 1024,
    namedBy: '`--snapshot-token-file`, the mounted controller and ServiceAccount tokens',
  },
  'suppress-file': { what: 'suppression file', maxBytes: 1024 * 1024, namedBy: '`--suppress-file`' },
  'ca-file': { what: 'CA bundle', maxBytes: 1024 * 1024, namedBy: '`--server-ca-file`' },
  'client-certificate': { what: 'client certificate', maxBytes: 256 * 1024, namedBy: '`--server-cert-file`' },
  'client-key': { what: 'client key', maxBytes: 256 * 1024, namedBy: '`--server-key-file`' },
  'pod-labels': { what: 'labels file', maxBytes: 256 * 1024, namedBy: '`--pod-labels-file`' },
  manifest: {
    what: 'manifest',
    // What `dump -o json` writes for the Kubernetes envelope (150,000 pods, about 1.8 KB each as the API
    // server returns an engine pod, compact): 100,000 of them are 183 MB, judged in 8 s and 1.6 GB.
    maxBytes: 320 * 1024 * 1024,
    namedBy: '`doctor -f` (a file, each file of a folder, standard input; also the most all of them together may hold)',
  },
} as const satisfies Readonly<Record<string, { readonly what: string; readonly maxBytes: number; readonly namedBy: string }>>;

/** A kind of operator file. */
export type OperatorFileKind = keyof typeof OPERATOR_FILES;

/** What reading an operator's file gave: its bytes, or why not (`missing` for a path that names nothing). */
export type OperatorFile =
  { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly missing: boolean; readonly reason: string };

/** What a file is when it is not a regular file, in the words of the refusal. */
function whatItIs(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function refused(reason: string, missing = false): OperatorFile {
  return { ok: false, missing, reason };
}

/** Rejects when `signal` aborts, with its reason; never settles otherwise. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

/**
 * Reads an operator's file of the given kind. The file is opened without blocking (`O_NONBLOCK`, so a
 * FIFO with no writer opens at once) and without becoming the controlling terminal, then judged by
 * what the open descriptor is: anything but a regular file is refused by name, as is a file larger
 * than its kind's cap (also one that grows past it while read, and a `/proc` file that claims size 0).
 * Never throws; a deadline or an interrupt ends the read with its reason.
 */
export async function readOperatorFile(path: string, kind: OperatorFileKind, signal?: AbortSignal): Promise<OperatorFile> {
  const { what, maxBytes } = OPERATOR_FILES[kind];
  const work = readBounded(path, what, maxBytes);
  if (signal === undefined) return work;
  try {
    return await Promise.race([work, aborted(signal)]);
  } catch (err) {
    return refused(`reading it was cut short: ${describeError(err)}`);
  }
}

async function readBounded(path: string, what: string, maxBytes: number): Promise<OperatorFile> {
  if (path === '') return refused('no file is named');
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (code === 'ENXIO') {
      // Opening a socket fails this way; say what it is.
      const st = await stat(path).catch(() => undefined);
      if (st !== undefined && !st.isFile()) return refused(`it is ${whatItIs(st)}, not a regular file`);
    }
    return refused(fileErrorReason(err), code === 'ENOENT');
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return refused(`it is ${whatItIs(st)}, not a regular file`);
    if (st.size > maxBytes) return refused(`it holds ${st.size} bytes, more than a ${what} may (${maxBytes})`);
    // Read to the end, whatever the size claimed: a file may grow while it is read, and a /proc file
    // claims 0 bytes. One byte past the cap is enough to know the file is too large.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(maxBytes + 1 - length, Math.max(st.size + 1 - length, 64 * 1024)));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes) return refused(`it holds more than a ${what} may (${maxBytes} bytes)`);
    }
    return { ok: true, bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length) };
  } catch (err) {
    return refused(fileErrorReason(err));
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Whether `path` names something. False also when that cannot be told: under Node's permission model a
 * path the process may not read makes `existsSync` throw, and a run must not end on a question.
 */
export function exists(path: string): boolean {
  try {
    return existsSync(path);
  } catch {
    return false;
  }
}
