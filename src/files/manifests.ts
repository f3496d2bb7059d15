/**
 * Reading what `doctor -f` names: files, folders (their `.yaml`, `.yml` and `.json` files in name
 * order, not descending into subfolders, as `kubectl -f` reads a folder) and standard input (`-`). Each
 * file is read as every operator's file is (`operator-file.ts`: regular files only, never blocking on a
 * FIFO or a device), and all of them together hold at most the manifest cap, so that memory and parsing
 * time stay bounded however many files are named.
 *
 * @module
 */

import { opendir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, fileErrorReason } from '../text/errors.ts';
import { InputError } from './input-error.ts';
import { parseManifest, type ManifestDocuments } from './manifest-documents.ts';
import { OPERATOR_FILES, readOperatorFile } from './operator-file.ts';

/** The name `-f` takes for standard input. */
export const STDIN_NAME = '-';

/** The extensions a folder's files must have to be read, as kubectl reads a folder. */
const MANIFEST_EXTENSIONS = /\.(?:ya?ml|json)$/;

/** The most entries of one folder looked at: beyond it the folder is refused, not listed on. */
export const MAX_FOLDER_ENTRIES = 10_000;

/** What the files held, each file parsed, in the order named. */
export interface ManifestRead {
  readonly files: readonly (ManifestDocuments & { readonly name: string })[];
}

/** Rejects when `signal` aborts, with its reason; never settles otherwise. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

/** Standard input to its end, at most `maxBytes`. */
async function readStdin(stdin: AsyncIterable<Uint8Array>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stdin) {
    length += chunk.length;
    if (length > maxBytes) throw new InputError(`standard input holds more than a manifest may (${maxBytes} bytes)`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks, length);
}

/** The manifest files of a folder, by name in byte order. */
async function folderFiles(path: string): Promise<string[]> {
  const names: string[] = [];
  let seen = 0;
  try {
    for await (const entry of await opendir(path)) {
      if (++seen > MAX_FOLDER_ENTRIES)
        throw new InputError(`-f ${JSON.stringify(path)}: the folder has more than ${MAX_FOLDER_ENTRIES} entries`);
      if (MANIFEST_EXTENSIONS.test(entry.name) && !entry.isDirectory()) names.push(entry.name);
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`-f ${JSON.stringify(path)}: the folder could not be read (${fileErrorReason(err)})`);
  }
  if (names.length === 0) throw new InputError(`-f ${JSON.stringify(path)}: the folder holds no .yaml, .yml or .json file`);
  return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((name) => join(path, name));
}

/** The files a name stands for: itself, or a folder's manifest files. */
async function expand(path: string): Promise<string[]> {
  if (path === STDIN_NAME) return [path];
  const st = await stat(path).catch(() => undefined);
  return st?.isDirectory() === true ? folderFiles(path) : [path];
}

/**
 * Reads and parses every file `-f` names, in order, under `signal` (the run's deadline and interrupt).
 *
 * @throws InputError for a file that cannot be read or parsed, a second `-`, or more than the cap in all.
 */
export async function readManifests(
  names: readonly string[],
  stdin: AsyncIterable<Uint8Array> | undefined,
  signal: AbortSignal,
): Promise<ManifestRead> {
  const work = async (): Promise<ManifestRead> => {
    const { maxBytes } = OPERATOR_FILES.manifest;
    let total = 0;
    const files: (ManifestDocuments & { name: string })[] = [];
    const paths = (await Promise.all(names.map(expand))).flat();
    if (paths.filter((p) => p === STDIN_NAME).length > 1)
      throw new InputError('-f - is given more than once: standard input can be read once');
    for (const path of paths) {
      let bytes: Buffer;
      if (path === STDIN_NAME) {
        if (stdin === undefined) throw new InputError('-f -: there is no standard input to read');
        bytes = await readStdin(stdin, maxBytes - total);
      } else {
        const file = await readOperatorFile(path, 'manifest', signal);
        if (!file.ok) throw new InputError(`-f ${JSON.stringify(path)}: ${file.missing ? 'no such file or folder' : file.reason}`);
        bytes = file.bytes;
      }
      total += bytes.length;
      if (total > maxBytes)
        throw new InputError(`the files named by -f hold more than ${maxBytes} bytes in all, more than the doctor reads`);
      const parsed =
        path === STDIN_NAME ? await parseManifest(bytes, 'standard input') : await parseManifest(bytes, JSON.stringify(path), path);
      files.push({ ...parsed, name: path });
      if (signal.aborted) break;
    }
    return { files };
  };
  try {
    return await Promise.race([work(), aborted(signal)]);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`reading the files named by -f was cut short: ${describeError(err)}`);
  }
}
