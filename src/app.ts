import { closeSync, constants, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { exists } from './files/operator-file.ts';
import { UsageError } from './cli/options.ts';
import { EXIT_CODES, type ExitCode } from './report/exit-codes.ts';
import { writerOf } from './report/output-formats.ts';
import { parseCommandLine } from './cli/parse.ts';
import { KubeConfigError } from './cluster/transport/kubeconfig-error.ts';
import { InputError } from './files/input-error.ts';
import type { RunIO } from './commands/io.ts';
import { forTerminal } from './report/terminal-text.ts';
import { describeError, fileErrorReason } from './text/errors.ts';
import { COMMIT, VERSION } from './version.ts';

/** What the process gives an invocation: its arguments, and what a doctor run needs. */
export interface ProcessIO extends RunIO {
  readonly argv: readonly string[];
}

/**
 * Writes the termination message, never blocking: only to a regular file (or a new one), opened
 * without waiting for a reader, so that a FIFO or a device named by the flag cannot hold the run.
 * Returns a warning when it could not.
 */
function writeTerminationFile(file: string, text: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOCTTY, 0o644);
  } catch (err) {
    return `could not write the termination message to ${JSON.stringify(file)} (${fileErrorReason(err)})`;
  }
  try {
    if (!fstatSync(fd).isFile()) return `did not write the termination message to ${JSON.stringify(file)}: it is not a regular file`;
    ftruncateSync(fd, 0);
    writeSync(fd, text);
    return undefined;
  } catch (err) {
    return `could not write the termination message to ${JSON.stringify(file)} (${fileErrorReason(err)})`;
  } finally {
    closeSync(fd);
  }
}

/**
 * One invocation: parse the command line, run the command, write the output and, for `doctor`, the
 * termination message. Returns the exit code: the report's (0, 1, 2, or 4 when interrupted), or 3 when
 * the doctor could not run. Every text that may come from the cluster is escaped before it reaches
 * stderr, as the renderers escape stdout.
 */
export async function runApp(io: ProcessIO): Promise<ExitCode> {
  /** `--termination-message-path` once the flags are parsed; until then the kubelet's file when it exists. */
  let terminationFlag: string | undefined;
  const terminationFile = (): string | undefined => {
    if (terminationFlag !== undefined) return terminationFlag === '' ? undefined : terminationFlag;
    return exists(io.files.terminationLog) ? io.files.terminationLog : undefined;
  };
  const terminate = async (text: string): Promise<void> => {
    const file = terminationFile();
    const warning = file === undefined ? undefined : writeTerminationFile(file, text);
    if (warning !== undefined) await io.err(`warning: ${forTerminal(warning).toString()}\n`);
  };

  try {
    const command = parseCommandLine(io.argv);
    switch (command.kind) {
      case 'help':
        await io.out(command.text);
        return EXIT_CODES.healthy;
      case 'version':
        await io.out(`inferencecache version ${VERSION} (commit ${COMMIT})\n`);
        return EXIT_CODES.healthy;
      case 'codes': {
        // The code table comes from the checks' declarations, which only this command and doctor load.
        const [{ codeTable }, write] = await Promise.all([import('./checks/codes.ts'), writerOf('codes', command.output)]);
        await io.out(write(codeTable()));
        return EXIT_CODES.healthy;
      }
      case 'explain': {
        // One code of the same table, with its hint, fix and docs link; an unknown code is a usage error.
        const { explainCode } = await import('./commands/explain.ts');
        await io.out(await explainCode(command.options));
        return EXIT_CODES.healthy;
      }
      case 'schema': {
        // The schema of the JSON report, kept in schema/ beside the code and bundled with it.
        const { default: schema } = await import('../schema/report.schema.json', { with: { type: 'json' } });
        await io.out(`${JSON.stringify(schema, null, 2)}\n`);
        return EXIT_CODES.healthy;
      }
      case 'dump': {
        const { runDumpCommand } = await import('./commands/dump.ts');
        return await runDumpCommand(io, command.options);
      }
      case 'monitor': {
        const { runMonitorCommand } = await import('./commands/monitor.ts');
        return await runMonitorCommand(io, command.options);
      }
      case 'doctor':
        break;
    }
    const { options } = command;
    terminationFlag = options.terminationMessagePath;
    // The Kubernetes client, the checks and the renderers load only now.
    const [{ runDoctorCommand }, { terminationSummary }] = await Promise.all([
      import('./commands/doctor.ts'),
      import('./report/termination-summary.ts'),
    ]);
    const report = await runDoctorCommand(io, options);
    await terminate(terminationSummary(report));
    return report.summary.exitCode;
  } catch (err) {
    const known = err instanceof UsageError || err instanceof KubeConfigError || err instanceof InputError;
    const text = describeError(err);
    const line = `error: ${forTerminal(known ? text : `unexpected failure: ${text}`).toString()}\n`;
    await io.err(line);
    await terminate(line);
    return EXIT_CODES.couldNotRun;
  }
}
