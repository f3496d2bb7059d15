/**
 * What the network probes observed, as plain data. Probes never judge: the checks turn these into
 * findings. Every error is a one-line string that carries no token or secret.
 */

/** The gRPC health statuses of grpc.health.v1 by their enum names. */
export type HealthStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

/** Outcome of `grpc.health.v1.Health/Check` with service "". */
export type GrpcHealthResult =
  { readonly kind: 'error'; readonly error: string } | { readonly kind: 'status'; readonly status: HealthStatus };

/** How the body of a 200 answer to GET /snapshot looked. */
export type SnapshotBody =
  | { readonly kind: 'json' }
  | { readonly kind: 'not-json' }
  | { readonly kind: 'too-large'; readonly limitBytes: number }
  | { readonly kind: 'read-error'; readonly error: string };

/**
 * The redirects a probe followed before its answer: how many, the URL that answered, and whether the
 * bearer token was withheld there because that URL is another origin than the one probed.
 */
export interface Redirect {
  readonly count: number;
  readonly to: string;
  readonly tokenWithheld: boolean;
}

/** Outcome of one HTTP probe (GET /snapshot, HEAD /policy, HEAD /probe). */
export type HttpResult =
  | { readonly kind: 'build-error'; readonly error: string }
  | { readonly kind: 'transport-error'; readonly error: string }
  | { readonly kind: 'response'; readonly status: number; readonly body?: SnapshotBody; readonly redirect?: Redirect };

/** Outcome of a TCP dial of a CacheBackend's published endpoint. */
export type DialResult = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** Where the cache-plane server was found, or why it was not. */
export type ServerLocation =
  | {
      readonly kind: 'found';
      /** The gRPC target exactly as dialled, e.g. `inference-cache-server.inference-cache-system.svc:9090`. */
      readonly grpcTarget: string;
      /** The base of the controller-facing HTTP listener, e.g. `http://host:8081`. */
      readonly httpBase: string;
    }
  | { readonly kind: 'failed'; readonly error: string };

/** Results of the server probes; absent entirely under `--config-only`. */
export interface ServerProbes {
  readonly location: ServerLocation;
  /** Present when the server was located. */
  readonly health?: GrpcHealthResult;
  readonly snapshot?: HttpResult;
  readonly policy?: HttpResult;
  readonly probe?: HttpResult;
  /** Whether a bearer token was sent with GET /snapshot. */
  readonly tokenSent: boolean;
}

/** Everything the network probes observed in one run. */
export interface ProbeResults {
  /** Absent under `--config-only`. */
  readonly server?: ServerProbes;
  /**
   * Dial outcome per published endpoint string, as stored in the CacheBackend status. Absent under
   * `--config-only` (endpoint presence is judged, reachability is not).
   */
  readonly dials?: ReadonlyMap<string, DialResult>;
}
