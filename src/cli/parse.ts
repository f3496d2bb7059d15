import { parseRfc3339 } from '../go/rfc3339.ts';
import { parseArgs } from 'node:util';
import { formatGoDuration, parseGoDuration } from '../go/duration.ts';
import { defaultFormatOf, formatFor, formatsOf, type Command as FormatCommand, type FormatOf } from '../report/output-formats.ts';
import { STATUSES, type Status } from '../report/status.ts';
import { describeError } from '../text/errors.ts';
import { RuleError, parseSuppressFlag } from '../suppress/rule.ts';
import { doctorParseOptions } from './flags.ts';
import { doctorHelp } from './help.ts';
import { UsageError, type Command, type DoctorOptions } from './options.ts';
import { parseServerEndpoint } from './server-endpoint.ts';
import { parseServerTlsFlags } from './server-tls-flags.ts';

const ROOT_HELP = `inferencecache: diagnose an inference-cache installation on Kubernetes

Usage:
  inferencecache doctor [flags]     run the checks and print a report
  inferencecache doctor -f PATH     run the checks on the objects of files, without a cluster
  inferencecache dump [flags]       write the objects the checks read, for doctor -f
  inferencecache codes [-o format]  list every finding code (-o ${formatsOf('codes').join(', ')})
  inferencecache schema             print the JSON Schema of the JSON report
  inferencecache --version          print the version

Run 'inferencecache doctor --help' for the doctor's flags.
`;

/** Default of `--timeout`. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** `--fail-on`, `--output-threshold`: a status in lower case, as the other flag values are. */
function parseStatusFlag(flag: string, value: string): Status {
  const status = STATUSES.find((s) => s.toLowerCase() === value);
  if (status === undefined) {
    throw new UsageError(`invalid ${flag} ${JSON.stringify(value)} (want one of: ${STATUSES.map((s) => s.toLowerCase()).join(', ')})`);
  }
  return status;
}

/** `-o` of `command`: a format it writes, or a usage error that names the formats it does. */
function parseOutput<C extends FormatCommand>(command: C, value: string): FormatOf<C> {
  const found = formatFor(command, value);
  if (!found.ok) throw new UsageError(found.error);
  return found.format;
}

/** Rewrites node's parseArgs errors into one short line that names the offending flag. */
function usageGuard<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    const text = describeError(err);
    throw new UsageError(text.split('\n')[0]?.replace(/\. To specify a positional argument.*$/, '') ?? text);
  }
}

/**
 * The longest deadline a timer can hold (2^31-1 ms, about 24.8 days). Beyond it Node fires the timer
 * at once, which would fail every read; such a value is refused instead.
 */
export const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** A positive Go duration that a timer can hold, in milliseconds, or a usage error naming the limit. */
function parseDeadline(flag: string, text: string): number {
  const ms = parseGoDuration(text);
  if (ms === undefined) throw new UsageError(`invalid ${flag} ${JSON.stringify(text)}: use a duration such as 500ms, 30s or 2m`);
  if (!(ms > 0)) throw new UsageError(`invalid ${flag} ${JSON.stringify(text)}: it must be longer than 0`);
  if (ms > MAX_DEADLINE_MS) {
    throw new UsageError(`invalid ${flag} ${JSON.stringify(text)}: the longest is ${formatGoDuration(MAX_DEADLINE_MS)}`);
  }
  return ms;
}

/** A namespace name is a DNS-1123 label: 1 to 63 of a-z, 0-9 and '-', starting and ending alphanumeric. */
const DNS_1123_LABEL = /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * `--namespace`: empty for all namespaces, else a DNS-1123 label. Anything else (`..`, `a/b`, `%2e`)
 * could only widen or bend the URL it enters, so it is refused.
 */
function parseNamespace(text: string): string {
  if (text === '' || DNS_1123_LABEL.test(text)) return text;
  throw new UsageError(
    `invalid --namespace ${JSON.stringify(text)}: a namespace name is at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit`,
  );
}

/** `--docs-base`: an absolute http or https URL (a link in a report must open somewhere). */
function parseDocsBase(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`invalid --docs-base ${JSON.stringify(text)}: want an absolute URL such as https://docs.example.com/codes.html`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`invalid --docs-base ${JSON.stringify(text)}: want an http or https URL`);
  }
  return text;
}

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
  const output = parseOutput('doctor', values.output);
  const failOn = parseStatusFlag('--fail-on', values['fail-on']);
  const outputThreshold = parseStatusFlag('--output-threshold', values['output-threshold']);
  const timeoutMs = parseDeadline('--timeout', values.timeout);
  const namespace = parseNamespace(values.namespace);
  const endpoint = values['server-endpoint'] === '' ? undefined : parseServerEndpoint(values['server-endpoint']);
  const serverTls = parseServerTlsFlags(values);
  const tokenFile = values['snapshot-token-file'];
  const waitMs = parseGoDuration(values.wait) === 0 ? 0 : parseDeadline('--wait', values.wait);
  const docsBase = values['docs-base'] === undefined ? undefined : parseDocsBase(values['docs-base']);
  const suppress = values.suppress.map((text) => {
    try {
      return parseSuppressFlag(text);
    } catch (err) {
      throw err instanceof RuleError ? new UsageError(err.message) : err;
    }
  });
  const suppressFile = values['suppress-file'];
  if (suppressFile === '') throw new UsageError('invalid --suppress-file "": name a file');
  const options: DoctorOptions = {
    kubeconfig: values.kubeconfig,
    context: values.context,
    namespace,
    ...(endpoint === undefined ? {} : { serverEndpoint: endpoint }),
    serverTls,
    ...(tokenFile === undefined ? {} : { snapshotTokenFile: tokenFile }),
    output,
    noColor: values['no-color'],
    configOnly: values['config-only'],
    files: offline.files,
    ...(offline.now === undefined ? {} : { now: offline.now }),
    covers: offline.covers,
    failOn,
    outputThreshold,
    showOk: values['show-ok'],
    ...(docsBase === undefined ? {} : { docsBase }),
    suppress,
    ...(suppressFile === undefined ? {} : { suppressFile }),
    waitMs,
    quiet: values.quiet,
    timeoutMs,
    controllerListener: true,
    ...(values['pod-labels-file'] === undefined ? {} : { podLabelsFile: values['pod-labels-file'] }),
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
    case 'dump':
      return parseDump(rest);
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
