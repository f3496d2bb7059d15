/**
 * The `dump` command once its flags are parsed: take the dump, write it to stdout in chunks, say on
 * stderr what could not be read. A module of its own so that the other commands load none of it.
 *
 * Writing is where a dump can be large (seconds of YAML for thousands of pods) and where a reader can
 * stall it (a pipe nobody reads): it yields between objects and races each chunk against the
 * interrupt, so that SIGTERM ends the command within a second wherever it is, with a stream that says
 * it is incomplete.
 *
 * @module
 */

import type { DumpOptions } from '../cli/options.ts';
import type { RunIO } from './io.ts';
import { takeDump } from '../doctor/dump.ts';
import type { DumpStream } from '../files/dump-stream.ts';
import { EXIT_CODES, type ExitCode } from '../report/exit-codes.ts';
import { writerOf } from '../report/output-formats.ts';
import { forTerminal } from '../report/terminal-text.ts';
import { pause } from '../probes/deadline.ts';
import { interruptionOf } from '../text/errors.ts';

/** How much of the stream is gathered before it is handed to stdout. */
const CHUNK_CHARS = 256 * 1024;

/** How long the work between two looks at the interrupt may run. */
const YIELD_EVERY_MS = 50;

/** How long the end that marks a stream incomplete may take to be written once the run is interrupted. */
const CUT_GRACE_MS = 500;

/** Resolves when `signal` aborts (at once if it has). */
function abortedOf(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** What became of writing the stream. */
type Written =
  | { readonly kind: 'written' }
  | { readonly kind: 'interrupted'; readonly reason: string }
  | { readonly kind: 'failed'; readonly reason: string };

/** Hands `text` to stdout, waiting for it to be taken at most the grace an interrupted run allows. */
async function writeWithinGrace(io: RunIO, text: string): Promise<void> {
  await Promise.race([io.out(text), pause(CUT_GRACE_MS, undefined)]);
}

/**
 * Writes the stream's pieces in chunks until it ends, the run is interrupted, or stdout fails. Each
 * chunk is handed to stdout in order; the wait for it to be taken gives way to the interrupt, after
 * which the end that marks the stream incomplete follows what was handed over, with a moment's grace.
 */
async function writeStream(io: RunIO, stream: DumpStream): Promise<Written> {
  const stopped = abortedOf(io.interrupt);
  let chunk = '';
  let since = Date.now();
  for (const piece of stream.pieces) {
    chunk += piece;
    if (chunk.length >= CHUNK_CHARS) {
      await Promise.race([io.out(chunk), stopped]);
      chunk = '';
      const failed = io.outError?.();
      if (failed !== undefined) return { kind: 'failed', reason: failed };
    }
    if (Date.now() - since >= YIELD_EVERY_MS) {
      // Let a signal be handled between two objects.
      await new Promise((resolve) => setImmediate(resolve));
      since = Date.now();
    }
    if (io.interrupt.aborted) break;
  }
  const interrupted = interruptionOf(io.interrupt);
  if (interrupted !== undefined) {
    await writeWithinGrace(io, chunk + stream.cut(interrupted));
    return { kind: 'interrupted', reason: interrupted };
  }
  await Promise.race([io.out(chunk), stopped]);
  const failed = io.outError?.();
  if (failed !== undefined) return { kind: 'failed', reason: failed };
  const late = interruptionOf(io.interrupt);
  return late === undefined ? { kind: 'written' } : { kind: 'interrupted', reason: late };
}

/**
 * Writes the dump. Exit 0 when every read got through; 1 when some failed (the rest is written, and
 * each failure is named on stderr and in the stream); 3 when no read got through or the stream could
 * not be written (one line on stderr); 4 when interrupted (the stream ends saying it is incomplete).
 */
export async function runDumpCommand(io: RunIO, options: DumpOptions): Promise<ExitCode> {
  const [dump, write] = await Promise.all([
    takeDump(options, { env: io.env, clock: io.clock, pod: {}, files: io.files, interrupt: io.interrupt }),
    writerOf('dump', options.output),
  ]);
  if (dump.nothingRead !== undefined) {
    await io.err(`error: no read got through, so nothing was written: ${forTerminal(dump.nothingRead).toString()}\n`);
    return EXIT_CODES.couldNotRun;
  }
  const stream = write(dump.document);
  const written: Written =
    dump.interrupted === undefined ? await writeStream(io, stream) : { kind: 'interrupted', reason: dump.interrupted };
  if (written.kind === 'failed') {
    await io.err(`error: the dump could not be written to standard output: ${forTerminal(written.reason).toString()}\n`);
    return EXIT_CODES.couldNotRun;
  }
  if (written.kind === 'interrupted') {
    if (dump.interrupted !== undefined) await writeWithinGrace(io, stream.cut(written.reason));
    await io.err(
      `error: ${forTerminal(written.reason).toString()}; the dump is incomplete and says so at its end (doctor -f refuses it)\n`,
    );
    return EXIT_CODES.interrupted;
  }
  for (const failure of dump.failures)
    await io.err(`warning: a read failed, so its objects are missing: ${forTerminal(failure).toString()}\n`);
  return dump.failures.length === 0 ? EXIT_CODES.healthy : EXIT_CODES.warnings;
}
