import { UsageError } from './cli/options.ts';
import { parseCommandLine } from './cli/parse.ts';
import { KubeConfigError } from './cluster/kubeconfig.ts';
import { runDoctor } from './doctor.ts';
import { renderCodes } from './report/codes-listing.ts';
import { render } from './report/render/index.ts';
import { VERSION, COMMIT } from './version.ts';

/** Exit code for "the doctor could not run": bad flags, no usable kubeconfig, unknown context. */
const EXIT_COULD_NOT_RUN = 3;

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

/** Colour only for a terminal, and never when --no-color, NO_COLOR or TERM=dumb says otherwise. */
function wantsColor(noColor: boolean): boolean {
  return !noColor && process.stdout.isTTY === true && (process.env['NO_COLOR'] ?? '') === '' && process.env['TERM'] !== 'dumb';
}

async function main(): Promise<number> {
  const command = parseCommandLine(process.argv.slice(2));
  switch (command.kind) {
    case 'help':
      await write(process.stdout, command.text);
      return 0;
    case 'version':
      await write(process.stdout, `inferencecache version ${VERSION} (commit ${COMMIT})\n`);
      return 0;
    case 'codes':
      await write(process.stdout, renderCodes(command.output));
      return 0;
    case 'doctor':
      break;
  }
  const { options } = command;
  const { report, warnings } = await runDoctor(options, { env: process.env, now: () => new Date() });
  for (const warning of warnings) await write(process.stderr, `warning: ${warning}\n`);
  await write(process.stdout, render(report, options.output, { color: options.output === 'human' && wantsColor(options.noColor) }));
  return report.summary.exitCode;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    const known = err instanceof UsageError || err instanceof KubeConfigError;
    const text = err instanceof Error ? err.message : String(err);
    await write(process.stderr, `error: ${known ? text : `unexpected failure: ${text}`}\n`);
    process.exit(EXIT_COULD_NOT_RUN);
  },
);
