import { parseRfc3339 } from '../go/rfc3339.ts';
import { parseDeadline, parseDocsBase, parseNamespace, parseOutput, parseStatusFlag, usageGuard } from './flag-values.ts';
import { parseArgs } from 'node:util';
import { parseGoDuration } from '../go/duration.ts';
import { defaultFormatOf, formatsOf } from '../report/output-formats.ts';
import { EXPLAIN_FLAGS, type ExplainFlag } from './explain-flags.ts';
import { doctorParseOptions, parseOptionsOf } from './flags.ts';
import { doctorHelp, explainHelp } from './help.ts';
import { UsageError, type Command, type DoctorOptions, type ExplainOptions } from './options.ts';
import { parseMonitor } from './parse-monitor.ts';
import { sharedRunOptions } from './run-options.ts';

const ROOT_HELP = `inferencecache: diagnose an inference-cache installation on Kubernetes

Usage:
  inferencecache doctor [flags]     run the checks and print a report
  inferencecache doctor -f PATH     run the checks on the objects of files, without a cluster
  inferencecache dump [flags]       write the objects the checks read, for doctor -f
  inferencecache monitor [flags]    run the checks on a schedule and serve Prometheus metrics
  inferencecache codes [-o format]  list every finding code (-o ${formatsOf('codes').join(', ')})
  inferencecache explain CODE       what a code means, what its check read, and how to fix it
  inferencecache schema             print the JSON Schema of the JSON report
  inferencecache --version          print the version

Run 'inferencecache doctor --help' for the doctor's flags, 'inferencecache explain --help' for explain's.
`;

/** The flags that only a run against a cluster uses: refused beside `-f`, which contacts none. */
const LIVE_ONLY_FLAGS: readonly string[] = [
  'kubeconfig',
  'context',
  'server-endpoint',
  'server-tls',
  'server-ca-file',
  'server-name',
  'server-insecure-skip-verify',
  'server-cert-file',
  'server-key-file',
  'snapshot-token-file',
  'wait',
  'pod-labels-file',
];

/** `--now`: an RFC 3339 time that names a real instant (`2026-02-30` is refused, not rolled over). */
function parseNow(text: string): Date {
  const at = parseRfc3339(text);
  if (at === undefined) {
    throw new UsageError(`invalid --now ${JSON.stringify(text)}: want an RFC 3339 time such as 2026-12-05T10:00:00Z, on a day that exists`);
  }
  return new Date(at);
}

/**
 * `--covers`: names, comma-separated and repeated. Which Kinds they name is decided where the Kinds are
 * known (a run from files), so that parsing the command line loads none of the cluster's modules.
 */
function parseCovers(values: readonly string[]): string[] {
  const names = values.flatMap((value) => value.split(',')).map((name) => name.trim());
  if (names.includes('')) throw new UsageError('invalid --covers: an empty Kind name (want Kinds such as Pod,Event, or all)');
  return [...new Set(names)];
}

/** The `-f` paths, and the refusal of what cannot go with them (or `--now` and `--covers` without them). */
function offlineFlags(
  files: readonly string[],
  given: ReadonlySet<string>,
  now: string | undefined,
  covers: readonly string[],
): { files: readonly string[]; now?: Date; covers: readonly string[] } {
  if (files.length === 0) {
    if (now !== undefined) throw new UsageError('--now is only for -f: a run against a cluster judges at the time it runs');
    if (covers.length > 0) throw new UsageError('--covers is only for -f: a run against a cluster reads every Kind it needs');
    return { files, covers: [] };
  }
  const live = LIVE_ONLY_FLAGS.find((flag) => given.has(flag));
  if (live !== undefined) throw new UsageError(`--${live} cannot be used with -f: a run from files contacts no cluster and probes nothing`);
  if (files.includes('')) throw new UsageError('invalid -f "": name a file, a folder or - for standard input');
  const covered = parseCovers(covers);
  return now === undefined ? { files, covers: covered } : { files, now: parseNow(now), covers: covered };
}

function parseDoctor(args: readonly string[]): Command {
  const { values, positionals, tokens } = usageGuard(() =>
    parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      tokens: true,
      options: doctorParseOptions(),
    }),
  );
  const given = new Set(tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : [])));
  const offline = offlineFlags(values.filename, given, values.now, values.covers);
  if (values.help) return { kind: 'help', text: doctorHelp() };
  if (positionals.length > 0) throw new UsageError(`doctor takes no arguments, got ${JSON.stringify(positionals[0])}`);
  const outputThreshold = parseStatusFlag('--output-threshold', values['output-threshold']);
  const waitMs = parseGoDuration(values.wait) === 0 ? 0 : parseDeadline('--wait', values.wait);
  const options: DoctorOptions = {
    ...sharedRunOptions(values),
    noColor: values['no-color'],
    files: offline.files,
    ...(offline.now === undefined ? {} : { now: offline.now }),
    covers: offline.covers,
    outputThreshold,
    showOk: values['show-ok'],
    waitMs,
    quiet: values.quiet,
    controllerListener: true,
    ...(values['termination-message-path'] === undefined ? {} : { terminationMessagePath: values['termination-message-path'] }),
  };
  return { kind: 'doctor', options: Object.freeze(options) };
}

function parseCodes(args: readonly string[]): Command {
  const { values, positionals } = usageGuard(() =>
    parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      options: { output: { type: 'string', short: 'o', default: defaultFormatOf('codes') } },
    }),
  );
  if (positionals.length > 0) throw new UsageError(`codes takes no arguments, got ${JSON.stringify(positionals[0])}`);
  return { kind: 'codes', output: parseOutput('codes', values.output) };
}

/** `explain CODE`: exactly one code (matched against the code table when the command runs), `-o`, `--docs-base`. */
function parseExplain(args: readonly string[]): Command {
  const { values, positionals } = usageGuard(() =>
    parseArgs({ args: [...args], strict: true, allowPositionals: true, options: parseOptionsOf<ExplainFlag>(EXPLAIN_FLAGS) }),
  );
  if (values.help) return { kind: 'help', text: explainHelp() };
  const output = parseOutput('explain', values.output);
  const docsBase = values['docs-base'] === undefined ? undefined : parseDocsBase(values['docs-base']);
  const [code, ...more] = positionals;
  if (code === undefined || code.trim() === '') {
    throw new UsageError("explain takes a finding code, such as CB004; run 'inferencecache codes' to list them");
  }
  if (more.length > 0)
    throw new UsageError(`explain takes one code, got ${positionals.length}: ${positionals.map((p) => JSON.stringify(p)).join(' ')}`);
  const options: ExplainOptions = { code, output, ...(docsBase === undefined ? {} : { docsBase }) };
  return { kind: 'explain', options: Object.freeze(options) };
}

function parseDump(args: readonly string[]): Command {
  const { values, positionals } = usageGuard(() =>
    parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      options: {
        kubeconfig: { type: 'string', default: '' },
        context: { type: 'string', default: '' },
        namespace: { type: 'string', short: 'n', default: '' },
        output: { type: 'string', short: 'o', default: defaultFormatOf('dump') },
        timeout: { type: 'string', default: '30s' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }),
  );
  if (values.help) return { kind: 'help', text: DUMP_HELP };
  if (positionals.length > 0) throw new UsageError(`dump takes no arguments, got ${JSON.stringify(positionals[0])}`);
  const output = parseOutput('dump', values.output);
  return {
    kind: 'dump',
    options: Object.freeze({
      kubeconfig: values.kubeconfig,
      context: values.context,
      namespace: parseNamespace(values.namespace),
      output,
      timeoutMs: parseDeadline('--timeout', values.timeout),
    }),
  };
}

const DUMP_HELP = `inferencecache dump: write the objects the doctor's checks read, for 'inferencecache doctor -f'

Usage:
  inferencecache dump [flags] > dump.yaml

Writes one stream led by a comment with the doctor's version, the context and the time: every object
the checks read (not every object of the cluster), without managedFields. Pull secrets are written with
their type and their registries only, never a credential. 'doctor -f dump.yaml' judges it at the time it
was taken.

Flags:
  --kubeconfig string    kubeconfig file (default: $KUBECONFIG, ~/.kube/config, then in-cluster)
  --context string       kubeconfig context to use (default: current context)
  -n, --namespace string dump only this namespace (default: all namespaces)
  -o, --output string    ${formatsOf('dump').join(' or ')} (default: ${defaultFormatOf('dump')})
  --timeout duration     deadline of all the reads (default: 30s)
  -h, --help             this help

Exit codes: 0 written; 1 written, but some read failed (stderr and the stream's comments name it);
3 nothing written; 4 interrupted.
`;

/**
 * Turns argv (without node and the script) into a command, or throws {@link UsageError}. Pure: it
 * looks at nothing but its argument.
 */
export function parseCommandLine(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  switch (first) {
    case 'doctor':
      return parseDoctor(rest);
    case 'codes':
      return parseCodes(rest);
    case 'explain':
      return parseExplain(rest);
    case 'dump':
      return parseDump(rest);
    case 'monitor':
      return parseMonitor(rest);
    case 'schema':
      if (rest.length > 0) throw new UsageError('schema takes no arguments');
      return { kind: 'schema' };
    case '--version':
    case 'version':
      if (rest.length > 0) throw new UsageError(`${first} takes no arguments`);
      return { kind: 'version' };
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      return { kind: 'help', text: ROOT_HELP };
    default:
      throw new UsageError(`unknown command ${JSON.stringify(first)}; run 'inferencecache --help'`);
  }
}
