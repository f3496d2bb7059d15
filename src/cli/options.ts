import type { OutputFormat } from '../report/render/index.ts';

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
  /**
   * The bearer token file for GET /snapshot. Undefined means the default rule: the controller-audience
   * token when that file exists, else the ServiceAccount token.
   */
  readonly snapshotTokenFile?: string;
  readonly output: OutputFormat;
  readonly noColor: boolean;
  readonly configOnly: boolean;
  /** The overall deadline of the run, in milliseconds. */
  readonly timeoutMs: number;
}

/** What the command line asked for. */
export type Command =
  | { readonly kind: 'doctor'; readonly options: DoctorOptions }
  | { readonly kind: 'version' }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'codes'; readonly output: OutputFormat };

/** A command line the doctor cannot run with: exit 3 with this one-line message on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
