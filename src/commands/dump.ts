/**
 * The `dump` command once its flags are parsed: take the dump, write it to stdout, say on stderr what
 * could not be read. A module of its own so that the other commands load none of it.
 *
 * @module
 */

import type { DumpOptions } from '../cli/options.ts';
import type { RunIO } from './io.ts';
import { takeDump } from '../doctor/dump.ts';
import { EXIT_CODES, type ExitCode } from '../report/exit-codes.ts';
import { forTerminal } from '../report/terminal-text.ts';

/** Writes the dump; exit 0 when every read got through, 1 when some failed (the rest is written), 4 when interrupted. */
export async function runDumpCommand(io: RunIO, options: DumpOptions): Promise<ExitCode> {
  const dump = await takeDump(options, {
    env: io.env,
    clock: io.clock,
    pod: {},
    files: io.files,
    interrupt: io.interrupt,
  });
  if (dump.interrupted !== undefined) {
    await io.err(`error: ${forTerminal(dump.interrupted).toString()}; nothing was written\n`);
    return EXIT_CODES.interrupted;
  }
  await io.out(dump.text);
  for (const failure of dump.failures) await io.err(`warning: not written, the read failed: ${forTerminal(failure).toString()}\n`);
  return dump.failures.length === 0 ? EXIT_CODES.healthy : EXIT_CODES.warnings;
}
