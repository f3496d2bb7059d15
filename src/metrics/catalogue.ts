/**
 * THE metrics the monitor exports, declared once: name, type, labels and what each says. The
 * monitor builds its families from these, docs/monitor.md's table and docs/codes.md's series column
 * are generated from them, and a test holds the exposition to them (no family the catalogue lacks,
 * no label it does not name).
 *
 * @module
 */

/** How a family's value behaves, by the OpenMetrics types. */
export type MetricKind = 'counter' | 'gauge' | 'histogram' | 'info';

/** One declared family. */
export interface MetricDeclaration {
  /** The family's name by the OpenMetrics rules (a counter's without `_total`, an info's without `_info`). */
  readonly name: string;
  readonly kind: MetricKind;
  /** Its labels besides `cluster` (every series carries that one when `--cluster` is given). */
  readonly labels: readonly string[];
  /** The `# HELP` line: one sentence. */
  readonly help: string;
}

/** The prefix of every family. */
const P = 'inferencecache_doctor';

/** Every family the monitor exports, in the order a scrape lists them. */
export const METRICS = {
  info: {
    name: P,
    kind: 'info',
    labels: ['version', 'commit'],
    help: 'The doctor build that serves these metrics.',
  },
  startTime: {
    name: `${P}_start_time_seconds`,
    kind: 'gauge',
    labels: [],
    help: 'When the monitor started, in seconds since the Unix epoch.',
  },
  interval: {
    name: `${P}_interval_seconds`,
    kind: 'gauge',
    labels: [],
    help: 'The time from the start of one run to the start of the next, before the jitter (--interval).',
  },
  findings: {
    name: `${P}_findings`,
    kind: 'gauge',
    labels: ['check', 'code', 'status'],
    help: 'Findings of the last completed run, not suppressed, by check, code and status; 0 for each code of a check that ran and found none of it.',
  },
  suppressed: {
    name: `${P}_suppressed_findings`,
    kind: 'gauge',
    labels: ['check', 'code'],
    help: 'Findings of the last completed run that a suppression rule silenced, by check and code.',
  },
  finding: {
    name: `${P}_finding`,
    kind: 'gauge',
    labels: ['check', 'code', 'status', 'resource'],
    help: 'One series per INFO, WARN or FAIL finding of the last completed run, with its resource (only with --resource-series, at most that many).',
  },
  findingOmitted: {
    name: `${P}_finding_series_omitted`,
    kind: 'gauge',
    labels: [],
    help: 'INFO, WARN and FAIL findings of the last completed run left without a series of their own by the --resource-series cap.',
  },
  lastExitCode: {
    name: `${P}_last_run_exit_code`,
    kind: 'gauge',
    labels: [],
    help: "The exit code the last completed run's report implies: 0 healthy, 1 a WARN counts, 2 a FAIL counts (--fail-on).",
  },
  lastTimestamp: {
    name: `${P}_last_run_timestamp_seconds`,
    kind: 'gauge',
    labels: [],
    help: 'When the last completed run ended, in seconds since the Unix epoch; absent until one has.',
  },
  runs: {
    name: `${P}_runs`,
    kind: 'counter',
    labels: ['exit_code'],
    help: 'Runs of the checks since the monitor started, by exit code; 3 is a run that could not start (its error is logged).',
  },
  runDuration: {
    name: `${P}_run_duration_seconds`,
    kind: 'histogram',
    labels: [],
    help: 'How long each run took, from the start of its reads to its judged report.',
  },
  apiRequests: {
    name: `${P}_api_requests`,
    kind: 'counter',
    labels: [],
    help: 'Requests sent to the Kubernetes API server, all GET.',
  },
  apiErrors: {
    name: `${P}_api_request_errors`,
    kind: 'counter',
    labels: [],
    help: 'Requests to the Kubernetes API server that got no answer, or an answer other than 200.',
  },
  probeDuration: {
    name: `${P}_probe_duration_seconds`,
    kind: 'histogram',
    labels: ['probe'],
    help: "How long each network probe took, by probe: grpc_health, snapshot, policy, probe, dial (a fresh pod's wait for admission not included).",
  },
} as const satisfies Readonly<Record<string, MetricDeclaration>>;

/** The name of one declared family. */
export type MetricKey = keyof typeof METRICS;

/** The series that counts the findings of `code`, as docs/codes.md names it. */
export function findingsSeriesOf(code: string): string {
  return `${METRICS.findings.name}{code="${code}"}`;
}
