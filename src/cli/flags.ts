/**
 * The flags of `inferencecache doctor`, declared once. The parser's option spec, the `--help` text and
 * the README's flag table are all derived from {@link DOCTOR_FLAGS}, so none of them can name a flag the
 * others lack or disagree about a default.
 *
 * @module
 */
import type { ParseArgsOptionDescriptor } from 'node:util';
import { DEFAULT_FAIL_ON } from '../report/finding.ts';
import { defaultFormatOf, formatsOf } from '../report/output-formats.ts';
import { orList } from '../text/or-list.ts';

/** The formats of the doctor's report, from their declarations (`report/output-formats.ts`). */
const REPORT_FORMATS = formatsOf('doctor');

/**
 * How a flag takes its value: `boolean` takes none; `string` and `duration` take one (the last given
 * wins; a duration is validated later, in Go syntax); `repeatable` takes one per occurrence, collected
 * in command-line order.
 */
export type FlagKind = 'boolean' | 'string' | 'duration' | 'repeatable';

interface FlagCommon {
  /** The name after `--`. */
  readonly long: string;
  /** The one-letter name after `-`, for the few flags that have one. */
  readonly short?: string;
  /**
   * The default as a human should understand it, in Markdown: a single code span (`` `auto` ``,
   * optionally followed by a note in parentheses) for a literal value, else prose. It describes what
   * happens when the flag is absent, which is often a rule applied after parsing (`$KUBECONFIG`, then
   * `~/.kube/config`), so it is separate from {@link ValueFlag.initial}. When left out it is the
   * literal `initial`, if there is one.
   */
  readonly default?: string;
  /** The one-line description `--help` shows (plain text; the renderer wraps it). */
  readonly help: string;
  /** The README table's "meaning" cell (Markdown), which may say more than `--help` has room for. */
  readonly readme: string;
}

/** A switch: false unless given; `--name=value` is refused. */
export interface BooleanFlag extends FlagCommon {
  readonly kind: 'boolean';
}

/** A flag with one value. */
export interface ValueFlag extends FlagCommon {
  readonly kind: 'string' | 'duration';
  /** The name of the value in `--help` (`--name string`); the kind's name unless given. */
  readonly value?: string;
  /**
   * What the parser reports when the flag is absent. Left out, the flag is undefined when absent, which
   * the options keep apart from an explicitly empty value.
   */
  readonly initial?: string;
}

/** A flag given once per value; absent, it is the empty list. */
export interface RepeatableFlag extends FlagCommon {
  readonly kind: 'repeatable';
  /** The name of one value in `--help`. */
  readonly value: string;
}

export type FlagDeclaration = BooleanFlag | ValueFlag | RepeatableFlag;

/** The doctor's flags, in the order `--help` and the README list them. */
export const DOCTOR_FLAGS = [
  {
    long: 'kubeconfig',
    kind: 'string',
    initial: '',
    default: '`$KUBECONFIG`, `~/.kube/config`, then in-cluster',
    help: 'kubeconfig file',
    readme: 'kubeconfig file',
  },
  {
    long: 'context',
    kind: 'string',
    initial: '',
    default: 'current context',
    help: 'kubeconfig context to use',
    readme: 'kubeconfig context; an unknown one is an error',
  },
  {
    long: 'namespace',
    short: 'n',
    kind: 'string',
    initial: '',
    default: 'all namespaces',
    help: 'check only this namespace',
    readme: 'scope of every CacheBackend, Pod, Event, CacheTenant and CachePolicy read',
  },
  {
    long: 'server-endpoint',
    kind: 'string',
    initial: '',
    default: 'discover the `inference-cache-server` Service',
    help: 'cache-plane server as host[:grpcPort]; skips Service discovery',
    readme: '`host[:grpcPort]`, e.g. `localhost`, `10.0.0.1:19090`, `[::1]:9090`',
  },
  {
    long: 'server-tls',
    kind: 'string',
    initial: 'auto',
    help: "the gRPC port's transport: auto (detect), on (TLS) or off (plaintext)",
    readme:
      'what the gRPC port speaks: `auto` (plaintext, and when that cannot connect, a TLS handshake finds out whether the port speaks TLS), `on` (TLS only), `off` (plaintext only); see "TLS on the server\'s gRPC port"',
  },
  {
    long: 'server-ca-file',
    kind: 'string',
    default: 'the system roots',
    help: "PEM CA bundle the server's certificate must lead to",
    readme: "PEM bundle the server's certificate must lead to (cert-manager's `ca.crt`)",
  },
  {
    long: 'server-name',
    kind: 'string',
    default: 'the host dialled, `inference-cache-server.<namespace>.svc` when discovered',
    help: "name the server's certificate must carry",
    readme: "the name the server's certificate must carry",
  },
  {
    long: 'server-insecure-skip-verify',
    kind: 'boolean',
    help: 'accept any server certificate: UNSAFE, anyone on the path can pose as the server; reported as TL012',
    readme: '**unsafe**: accept any certificate, so anyone on the path could pose as the server; reported as `TL012` (INFO)',
  },
  {
    long: 'server-cert-file',
    kind: 'string',
    help: 'client certificate (PEM) for a server that requires one',
    readme: 'a client certificate (PEM), for a server that requires one; give its key with `--server-key-file`',
  },
  {
    long: 'server-key-file',
    kind: 'string',
    help: 'its private key (PEM)',
    readme: 'the private key (PEM) of the `--server-cert-file` client certificate',
  },
  {
    long: 'snapshot-token-file',
    kind: 'string',
    default:
      'the controller-audience token at `/var/run/secrets/inferencecache.io/controller-token/token` when present, else the ServiceAccount token',
    help: 'bearer token for GET /snapshot',
    readme: 'bearer token for `GET /snapshot`',
  },
  {
    long: 'output',
    short: 'o',
    kind: 'string',
    initial: defaultFormatOf('doctor'),
    help: `${orList(REPORT_FORMATS)} (junit: one testsuite per check, a <failure> per finding at or above --fail-on)`,
    readme: `${orList(REPORT_FORMATS.map((f) => `\`${f}\``))} ("Output formats" says what each holds)`,
  },
  {
    long: 'no-color',
    kind: 'boolean',
    help: 'no ANSI colour in human output (also: NO_COLOR, TERM=dumb)',
    readme: 'no ANSI colour (also off with `NO_COLOR` or `TERM=dumb`, and when stdout is not a terminal)',
  },
  {
    long: 'config-only',
    kind: 'boolean',
    help: 'judge configuration only: no server probes, no TCP dials',
    readme: 'skip the server probes and the CacheBackend TCP dials',
  },
  {
    long: 'filename',
    short: 'f',
    kind: 'repeatable',
    value: 'path',
    help: 'judge the objects of a YAML or JSON file, a folder of them, or - for stdin; no cluster is contacted',
    readme:
      'judge the objects of a file (YAML or JSON, multi-document, `List`s, `helm template` or `inferencecache dump` output), of a folder\'s `.yaml`, `.yml` and `.json` files in name order, or of standard input (`-`); repeatable; no API server is contacted and no probe runs (see "Offline")',
  },
  {
    long: 'now',
    kind: 'string',
    value: 'time',
    default: "the dump's recorded time, else the clock",
    help: 'with -f: judge ages as of this RFC 3339 time, e.g. 2026-12-05T10:00:00Z',
    readme:
      'with `-f`: the instant every age is judged at (an RFC 3339 time); without it, the time an `inferencecache dump` recorded, else the clock',
  },
  {
    long: 'covers',
    kind: 'repeatable',
    value: 'kinds',
    default: 'the Kinds of the objects and typed lists in the files',
    help: 'with -f: Kinds the files hold all of (comma-separated, or all); one with no object is judged as none',
    readme:
      'with `-f`: Kinds the files hold all of (`Pod,Event`, `pods`, or `all`), comma-separated or repeated: one without objects is judged as none, not as not given (`FI002`); for a plain `List`, which names no Kinds',
  },
  {
    long: 'fail-on',
    kind: 'string',
    initial: DEFAULT_FAIL_ON.toLowerCase(),
    help: 'lowest status that counts for the exit code: ok, info, warn or fail; the others are still reported',
    readme:
      'the lowest status that counts for the exit code: `ok`, `info`, `warn` or `fail`; the rest are still reported, and a threshold other than `warn` is named in the summary (`summary.failOn` in JSON)',
  },
  {
    long: 'output-threshold',
    kind: 'string',
    initial: 'ok',
    default: '`ok` (all)',
    help: 'lowest status human and table output show: ok, info, warn or fail; the summary counts all, JSON holds all',
    readme:
      'the lowest status human and table output show; a line says how many findings are not shown, the summary counts them all, and `-o json` always holds every finding',
  },
  {
    long: 'show-ok',
    kind: 'boolean',
    help: "list every OK finding in human output; without it, a code's OK findings fold into one line past 20",
    readme: 'list every OK finding in human output; without it, past 20 OK findings of one code they fold into one line with their count',
  },
  {
    long: 'suppress',
    kind: 'repeatable',
    value: 'CODE[=GLOB]',
    help: 'do not count findings of CODE (whose resource matches GLOB: * any run of characters, ? one); repeatable. JSON lists them apart',
    readme:
      '`CODE` or `CODE=RESOURCE-GLOB` (`*` any run of characters, `/` included; `?` one), repeatable: matching findings are listed apart and never count',
  },
  {
    long: 'suppress-file',
    kind: 'string',
    help: 'YAML file of suppression rules (code, resource, reason, expires)',
    readme:
      'a YAML file of rules: `suppressions:` a list of `{code, resource (glob, optional), reason (required), expires (optional date or RFC 3339 time)}`',
  },
  {
    long: 'docs-base',
    kind: 'string',
    default: "this release's `docs/codes.md` in the project's repository",
    help: "URL of docs/codes.md for the findings' docs links",
    readme: "URL the findings' `docs` links point under (an operator's own copy)",
  },
  {
    long: 'wait',
    kind: 'duration',
    initial: '0',
    default: '`0` (once)',
    help: 'run the checks again until nothing at or above --fail-on remains or the duration ends, e.g. 5m; progress on stderr',
    readme:
      'run the checks again until nothing at or above `--fail-on` remains or the duration ends (`5m`): one progress line per attempt on stderr, only the last report on stdout, `attempts` in JSON',
  },
  {
    long: 'quiet',
    kind: 'boolean',
    help: "no --wait progress lines on stderr (JSON's attempts still list them)",
    readme:
      "no `--wait` progress lines on stderr (the chart sets it: a pod's log merges stderr into stdout in no fixed order, which split the JSON report on a real kubelet)",
  },
  {
    long: 'timeout',
    kind: 'duration',
    initial: '30s',
    help: 'deadline of one run of the checks, e.g. 500ms, 30s, 2m; under --wait, of each attempt',
    readme: 'deadline of one run of the checks (of each attempt under `--wait`), in Go duration syntax (`500ms`, `30s`, `2m`)',
  },
  {
    long: 'pod-labels-file',
    kind: 'string',
    default: '`/etc/podinfo/labels`',
    help: "the doctor pod's labels, as the downward API writes them, used with $POD_NAMESPACE to judge NetworkPolicies",
    readme:
      "the doctor pod's labels, in the file format of the downward API (the chart mounts them at the default path); read only when `POD_NAMESPACE` is set, to judge whether the server's NetworkPolicies admit the doctor (`NP*`)",
  },
  {
    long: 'termination-message-path',
    kind: 'string',
    default: '`/dev/termination-log` when it exists (in a pod), else none',
    help: 'file for a summary of at most 4 KiB; "" writes none',
    readme:
      'file for a summary of at most 4 KiB (counts, exit code, every FAIL and WARN code with as many resources as fit), shown by `kubectl describe pod` and Argo CD; `""` writes none',
  },
  {
    long: 'help',
    short: 'h',
    kind: 'boolean',
    help: 'this help',
    readme: 'print this help and exit',
  },
] as const satisfies readonly FlagDeclaration[];

/** One of the doctor's flags, with its literal types. */
export type DoctorFlag = (typeof DOCTOR_FLAGS)[number];

/**
 * The parseArgs descriptor of one declared flag, as a type: the literal `type`, `short`, `multiple` and
 * the presence of `default` are what parseArgs types the parsed values from (a string with a default
 * is `string`, one without is `string | undefined`, a repeatable one `string[]`).
 */
type ParseOption<F extends FlagDeclaration> = { readonly type: F['kind'] extends 'boolean' ? 'boolean' : 'string' } & ShortOf<F> &
  DefaultOf<F>;

type ShortOf<F extends FlagDeclaration> = F extends { readonly short: infer S extends string } ? { readonly short: S } : unknown;

type DefaultOf<F extends FlagDeclaration> = F['kind'] extends 'boolean'
  ? { readonly default: false }
  : F['kind'] extends 'repeatable'
    ? { readonly multiple: true; readonly default: string[] }
    : F extends { readonly initial: infer I extends string }
      ? { readonly default: I }
      : unknown;

/** The parseArgs `options` of a command whose flags are the union `F`, keyed by long name. */
export type ParseOptionsOf<F extends FlagDeclaration> = { readonly [X in F as X['long']]: ParseOption<X> };

/** The parseArgs `options` of the doctor command, keyed by long name. */
export type DoctorParseOptions = ParseOptionsOf<DoctorFlag>;

function parseOption(flag: FlagDeclaration): ParseArgsOptionDescriptor {
  const short = flag.short === undefined ? {} : { short: flag.short };
  switch (flag.kind) {
    case 'boolean':
      return { type: 'boolean', ...short, default: false };
    case 'repeatable':
      return { type: 'string', multiple: true, ...short, default: [] };
    case 'string':
    case 'duration':
      return { type: 'string', ...short, ...(flag.initial === undefined ? {} : { default: flag.initial }) };
  }
}

/**
 * The parseArgs `options` of a command from its declared `flags`. Built afresh for each parse, so that
 * no run can share a default list with another.
 */
export function parseOptionsOf<F extends FlagDeclaration>(flags: readonly F[]): ParseOptionsOf<F> {
  // The one place the declared types meet the built object: ParseOption says per flag what
  // parseOption builds, and a test compares the two.
  return Object.fromEntries(flags.map((flag) => [flag.long, parseOption(flag)])) as unknown as ParseOptionsOf<F>;
}

/** The parseArgs `options` of the doctor command, built from {@link DOCTOR_FLAGS}. */
export function doctorParseOptions(): DoctorParseOptions {
  return parseOptionsOf<DoctorFlag>(DOCTOR_FLAGS);
}

/** A default written as one code span, optionally with a note: `` `ok` (all) ``. */
const LITERAL_DEFAULT = /^`([^`]+)`(?: \((.+)\))?$/;

/**
 * The default a human is told about, in Markdown, or undefined when there is nothing to say (a switch,
 * or a value that is simply absent).
 */
export function statedDefault(flag: FlagDeclaration): string | undefined {
  if (flag.default !== undefined) return flag.default;
  if (flag.kind !== 'string' && flag.kind !== 'duration') return undefined;
  return flag.initial === undefined || flag.initial === '' ? undefined : `\`${flag.initial}\``;
}

/** A stated default that is a literal value: the value and its note, if any. */
export function literalDefault(markdown: string): { readonly value: string; readonly note?: string } | undefined {
  const match = LITERAL_DEFAULT.exec(markdown);
  if (match?.[1] === undefined) return undefined;
  return match[2] === undefined ? { value: match[1] } : { value: match[1], note: match[2] };
}

/** The name of the value in `--help`, or undefined for a switch. */
export function valueName(flag: FlagDeclaration): string | undefined {
  switch (flag.kind) {
    case 'boolean':
      return undefined;
    case 'repeatable':
      return flag.value;
    case 'string':
    case 'duration':
      return flag.value ?? flag.kind;
  }
}
