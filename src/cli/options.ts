import type { FormatOf } from '../report/output-formats.ts';
import type { SuppressionRule } from '../suppress/rule.ts';
import type { Status } from '../report/status.ts';
import type { ServerTlsOptions } from '../probes/server-transport.ts';

export type { ServerTlsMode, ServerTlsOptions } from '../probes/server-transport.ts';

/** A parsed `--server-endpoint`: where to find the cache-plane server without asking Kubernetes. */
export interface ServerEndpoint {
  readonly host: string;
  readonly grpcPort: string;
}

/** The validated flags of `inferencecache doctor`. Built once by `parseDoctorArgs`, then frozen. */
export interface DoctorOptions {
  readonly kubeconfig: string;
  readonly context: string;
  /** Scope of every namespaced read; empty means all namespaces. Never affects server discovery. */
  readonly namespace: string;
  readonly serverEndpoint?: ServerEndpoint;
  readonly serverTls: ServerTlsOptions;
  /**
   * The bearer token file for GET /snapshot. Undefined means the default rule: the controller-audience
   * token when that file exists, else the ServiceAccount token.
   */
  readonly snapshotTokenFile?: string;
  readonly output: FormatOf<'doctor'>;
  readonly noColor: boolean;
  readonly configOnly: boolean;
  /**
   * `-f`: the files, folders and `-` (stdin) to judge instead of a cluster, in command-line order;
   * empty for a live run.
   */
  readonly files: readonly string[];
  /** `--now`: with `-f`, the instant ages are judged at, instead of the dump's recorded time or the clock. */
  readonly now?: Date;
  /**
   * `--covers`: with `-f`, the Kinds the files hold every object of (as written: Kind or resource names,
   * or `all`), so that one without objects is judged as empty rather than not given; empty when not told.
   */
  readonly covers: readonly string[];
  /** `--fail-on`: the lowest status that counts for the exit code (WARN unless told). */
  readonly failOn: Status;
  /** `--output-threshold`: the lowest status human and table output show (OK unless told: all). */
  readonly outputThreshold: Status;
  /** `--show-ok`: human output lists every OK finding instead of folding a code's many into one line. */
  readonly showOk: boolean;
  /** `--docs-base`: where the findings' docs links point; undefined means the release's docs/codes.md. */
  readonly docsBase?: string;
  /** The `--suppress` rules, in command-line order. */
  readonly suppress: readonly SuppressionRule[];
  /** `--suppress-file`: a YAML file of rules, read when the run starts. */
  readonly suppressFile?: string;
  /**
   * `--wait`: for how long, in milliseconds, to run the checks again while a finding at or above
   * `failOn` remains; 0 runs them once.
   */
  readonly waitMs: number;
  /**
   * No `--wait` progress lines on stderr. A pod's log merges stderr into stdout in no fixed order, so
   * the chart sets it to keep the JSON report whole there; the report's `attempts` lists every attempt.
   */
  readonly quiet: boolean;
  /** The deadline of one run of the checks (of each attempt under `--wait`), in milliseconds. */
  readonly timeoutMs: number;
  /**
   * Whether the routes of the server's controller-facing listener (`:8081`) are probed. Always for
   * `doctor`; for `monitor` only when `--probe-controller-listener` lets it (docs/monitor.md).
   */
  readonly controllerListener: boolean;
  /**
   * The downward-API file holding the doctor pod's labels, for NetworkPolicyReachability. Undefined
   * means `/etc/podinfo/labels`, where the chart mounts it; read only when `POD_NAMESPACE` is set.
   */
  readonly podLabelsFile?: string;
  /**
   * Where the termination summary goes, so `kubectl describe` and Argo CD show the outcome without the
   * logs. Undefined means `/dev/termination-log` when that file exists (in a pod); empty disables it.
   */
  readonly terminationMessagePath?: string;
}

/** What the command line asked for. */
export type Command =
  | { readonly kind: 'doctor'; readonly options: DoctorOptions }
  | { readonly kind: 'version' }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'codes'; readonly output: FormatOf<'codes'> }
  | { readonly kind: 'explain'; readonly options: ExplainOptions }
  | { readonly kind: 'schema' }
  | { readonly kind: 'dump'; readonly options: DumpOptions }
  | { readonly kind: 'monitor'; readonly options: MonitorOptions };

/** Where the monitor serves: a host (empty: every address) and a port (0: any free one, for tests). */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** The validated flags of `inferencecache monitor`. */
export interface MonitorOptions {
  /** The options of each run: a live doctor run of the shared flags, probing what the monitor may. */
  readonly run: DoctorOptions;
  readonly listen: ListenAddress;
  /** From the start of one run to the start of the next, before the jitter, in milliseconds. */
  readonly intervalMs: number;
  /** `--cluster`: the value of a `cluster` label on every series; empty for none. */
  readonly cluster: string;
  /** `--resource-series`: how many per-resource finding series at most; 0 for none. */
  readonly resourceSeries: number;
  /** `--once`: one run, its report on stdout and its exit code, as `doctor`. */
  readonly once: boolean;
}

/** The validated command line of `inferencecache explain`. */
export interface ExplainOptions {
  /**
   * The code as typed. Which codes exist is known only to the code table, which parsing the command
   * line does not load: the command matches it there, in any case, and refuses an unknown one.
   */
  readonly code: string;
  readonly output: FormatOf<'explain'>;
  /** `--docs-base`: where the docs link points; undefined means the release's docs/codes.md. */
  readonly docsBase?: string;
}

/** The validated flags of `inferencecache dump`. */
export interface DumpOptions {
  readonly kubeconfig: string;
  readonly context: string;
  /** Scope of every namespaced read, as the doctor's `--namespace`; empty means all namespaces. */
  readonly namespace: string;
  readonly output: FormatOf<'dump'>;
  /** The deadline of all the reads, in milliseconds. */
  readonly timeoutMs: number;
}

/** A command line the doctor cannot run with: exit 3 with this one-line message on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
