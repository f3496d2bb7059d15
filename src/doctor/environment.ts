/**
 * What a doctor run needs from its surroundings, passed in by `main.ts`, the only module that touches
 * `process`: the environment, the clock, the pod's files, the interrupt.
 *
 * @module
 */

import type { Report } from '../report/finding.ts';

/**
 * The files a pod gives the doctor, by path. `main.ts` builds the one value with the in-pod paths
 * (the kubelet mounts them there); a flag names another file where there is one.
 */
export interface PodFiles {
  /** The ServiceAccount's `token` and `ca.crt`, for the in-cluster kubeconfig. */
  readonly serviceAccountDir: string;
  /** The projected token with the audience `/snapshot` accepts; the default bearer token. */
  readonly controllerToken: string;
  /** The downward-API labels file (`--pod-labels-file` overrides it). */
  readonly podLabels: string;
  /** Where the kubelet reads the termination message (`--termination-message-path` overrides it). */
  readonly terminationLog: string;
}

/** What a run needs from its surroundings, passed in so that only main.ts touches `process`. */
export interface RunEnvironment {
  /** The environment: the kubeconfig loader reads its variables, an exec credential plugin runs with it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The run's one clock: each attempt's reference instant (every time window of the checks), its
   * deadline, the probes' budgets and the `--wait` schedule all read it.
   */
  readonly clock: () => Date;
  /**
   * When the doctor's process started. In a pod it is the container's only process, so this is when the
   * container started: the settle window of the probes counts from it (probes/settle.ts).
   */
  readonly started?: Date;
  /** `POD_NAMESPACE` and `POD_NAME`, which the chart's pod sets through the downward API. */
  readonly pod: { readonly namespace?: string | undefined; readonly name?: string | undefined };
  readonly files: PodFiles;
  /** Aborted (with an `Interrupted` reason) when the process is told to stop; the run then ends early. */
  readonly interrupt?: AbortSignal;
  /** Standard input, for `-f -`; absent when the process has none to give. */
  readonly stdin?: AsyncIterable<Uint8Array>;
  /** Takes the progress line of each `--wait` attempt (for stderr). */
  readonly progress?: (line: string) => Promise<void>;
  /** Told what each attempt asked of the API server and how long its probes took; see {@link RunObserver}. */
  readonly observer?: RunObserver;
  /**
   * Collects the whole heap: called once an attempt has read everything and before it judges, when
   * what reading left behind is garbage (src/full-collection.ts). Absent, nothing is collected early.
   */
  readonly collectGarbage?: () => void;
}

/** A probe the run times: gRPC health, each route of the controller-facing listener, a CacheBackend dial. */
export type ProbeKind = 'grpc_health' | 'snapshot' | 'policy' | 'probe' | 'dial';

/** Takes how long one probe took, in seconds (its wait for a fresh pod's admission not included). */
export type ProbeTimer = (probe: ProbeKind, seconds: number) => void;

/**
 * What a run tells whoever keeps count of many runs (the monitor's metrics): what each attempt asked
 * of the API server, and how long each probe took. A one-shot doctor run has none.
 */
export interface RunObserver {
  /** After each attempt of a live run: the requests it sent, and how many got no answer or not a 200. */
  readonly api: (requests: number, errors: number) => void;
  readonly probe: ProbeTimer;
}

/** A finished run: the report, and warnings for stderr. */
export interface RunResult {
  readonly report: Report;
  readonly warnings: readonly string[];
}
