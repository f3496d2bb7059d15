import { existsSync, writeFileSync } from 'node:fs';
import { UsageError } from './cli/options.ts';
import { parseCommandLine } from './cli/parse.ts';
import { inContainer } from './cluster/container-root.ts';
import { KubeConfigError } from './cluster/kubeconfig.ts';
import { runDoctor } from './doctor.ts';
import { renderCodes } from './report/codes-listing.ts';
import { render } from './report/render/index.ts';
import { terminationSummary } from './report/termination-summary.ts';
import { VERSION, COMMIT } from './version.ts';

/** Exit code for "the doctor could not run": bad flags, no usable kubeconfig, unknown context. */
const EXIT_COULD_NOT_RUN = 3;

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

/** Where the kubelet looks for a container's termination message unless the pod names another file. */
const DEFAULT_TERMINATION_LOG = '/dev/termination-log';

/** `--termination-message-path` once the doctor's flags are parsed; until then the default rule holds. */
let terminationFlag: string | undefined;

/**
 * The termination-message file: the flag's file ('' for none), else the kubelet's default file when it
 * exists, i.e. in a pod. Both are in-pod paths (see `inContainer`: below the test kubelet's container
 * root when there is one).
 */
function terminationFile(): string | undefined {
  if (terminationFlag === '') return undefined;
  if (terminationFlag !== undefined) return inContainer(secretsRoot(), terminationFlag);
  const file = defaultTerminationFile();
  return existsSync(file) ? file : undefined;
}

function secretsRoot(): string {
  return process.env['INFERENCECACHE_SECRETS_ROOT'] ?? '';
}

/** The kubelet's default file, below the test kubelet's container root when there is one. */
function defaultTerminationFile(): string {
  return inContainer(secretsRoot(), DEFAULT_TERMINATION_LOG);
}

/** Writes the termination message; failing to is a warning, never a different exit code. */
async function writeTerminationMessage(text: string): Promise<void> {
  let file: string | undefined;
  try {
    file = terminationFile();
    if (file !== undefined) writeFileSync(file, text);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    await write(process.stderr, `warning: could not write the termination message to ${JSON.stringify(file ?? defaultTerminationFile())} (${why})\n`);
  }
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
  terminationFlag = options.terminationMessagePath;
  const { report, warnings } = await runDoctor(options, { env: process.env, now: () => new Date(), podNamespace: process.env['POD_NAMESPACE'] });
  for (const warning of warnings) await write(process.stderr, `warning: ${warning}\n`);
  await write(process.stdout, render(report, options.output, { color: options.output === 'human' && wantsColor(options.noColor) }));
  await writeTerminationMessage(terminationSummary(report));
  return report.summary.exitCode;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    const known = err instanceof UsageError || err instanceof KubeConfigError;
    const text = err instanceof Error ? err.message : String(err);
    const line = `error: ${known ? text : `unexpected failure: ${text}`}\n`;
    await write(process.stderr, line);
    await writeTerminationMessage(line);
    process.exit(EXIT_COULD_NOT_RUN);
  },
);
