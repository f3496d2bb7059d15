import { describeError } from './text/errors.ts';
import { existsSync, writeFileSync } from 'node:fs';
import { codeTable } from './checks/codes.ts';
import { UsageError } from './cli/options.ts';
import { parseCommandLine } from './cli/parse.ts';
import { KubeConfigError } from './cluster/kubeconfig.ts';
import { runDoctor, type PodFiles } from './doctor.ts';
import { renderCodeTable } from './report/code-table.ts';
import { render } from './report/render/index.ts';
import { terminationSummary } from './report/termination-summary.ts';
import { fileErrorReason } from './text/errors.ts';
import { VERSION, COMMIT } from './version.ts';

/** Exit code for "the doctor could not run": bad flags, no usable kubeconfig, unknown context. */
const EXIT_COULD_NOT_RUN = 3;

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

/**
 * The files a pod gives the doctor, at the paths the kubelet mounts them: the ServiceAccount's token
 * and CA, the projected controller-audience token, the downward-API labels, the termination log.
 */
const IN_POD: PodFiles = {
  serviceAccountDir: '/var/run/secrets/kubernetes.io/serviceaccount',
  controllerToken: '/var/run/secrets/inferencecache.io/controller-token/token',
  podLabels: '/etc/podinfo/labels',
  terminationLog: '/dev/termination-log',
};

/** `--termination-message-path` once the doctor's flags are parsed; until then the default rule holds. */
let terminationFlag: string | undefined;

/** The termination-message file: the flag's file ('' for none), else the kubelet's file when it exists, i.e. in a pod. */
function terminationFile(): string | undefined {
  if (terminationFlag !== undefined) return terminationFlag === '' ? undefined : terminationFlag;
  return existsSync(IN_POD.terminationLog) ? IN_POD.terminationLog : undefined;
}

/** Writes the termination message; failing to is a warning, never a different exit code. */
async function writeTerminationMessage(text: string): Promise<void> {
  let file: string | undefined;
  try {
    file = terminationFile();
    if (file !== undefined) writeFileSync(file, text);
  } catch (err) {
    const why = fileErrorReason(err);
    await write(
      process.stderr,
      `warning: could not write the termination message to ${JSON.stringify(file ?? IN_POD.terminationLog)} (${why})\n`,
    );
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
      await write(process.stdout, renderCodeTable(codeTable(), command.output));
      return 0;
    case 'doctor':
      break;
  }
  const { options } = command;
  terminationFlag = options.terminationMessagePath;
  const { report, warnings } = await runDoctor(options, {
    env: process.env,
    now: () => new Date(),
    pod: { namespace: process.env['POD_NAMESPACE'], name: process.env['POD_NAME'] },
    files: IN_POD,
  });
  for (const warning of warnings) await write(process.stderr, `warning: ${warning}\n`);
  await write(process.stdout, render(report, options.output, { color: options.output === 'human' && wantsColor(options.noColor) }));
  await writeTerminationMessage(terminationSummary(report));
  return report.summary.exitCode;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    const known = err instanceof UsageError || err instanceof KubeConfigError;
    const text = describeError(err);
    const line = `error: ${known ? text : `unexpected failure: ${text}`}\n`;
    await write(process.stderr, line);
    await writeTerminationMessage(line);
    process.exit(EXIT_COULD_NOT_RUN);
  },
);
