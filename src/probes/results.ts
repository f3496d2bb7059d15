/**
 * What the network probes observed, as plain data. Probes never judge: the checks turn these into
 * findings. Every error is a one-line string that carries no token or secret.
 */

/** How a retried connection failed: an ICMP reject (port or host), or no answer at all. */
export type SettleFailure = 'refused' | 'unreachable' | 'unanswered';

/**
 * A probe's wait for its port to accept a connection in a fresh pod (`settle.ts`), when at least one
 * try failed; the findings of that probe say so. Absent when the first try was accepted, or nothing was tried.
 */
export interface Settling {
  /** How the last failed try failed. */
  readonly failure: SettleFailure;
  /** How many tries failed. */
  readonly tries: number;
  /** Whether a connection was accepted in the end (if not, the probe that follows says how it failed). */
  readonly accepted: boolean;
  /** Milliseconds after the pod started at which a connection was accepted, or the doctor stopped trying. */
  readonly afterPodStartMs: number;
}

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

/**
 * Outcome of a TCP dial of a CacheBackend's published endpoint; `settling` when the dial first waited
 * for a fresh pod to be admitted (see settle.ts).
 */
export type DialResult = ({ readonly ok: true } | { readonly ok: false; readonly error: string }) & { readonly settling?: Settling };

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

/**
 * A certificate as the report names it. Every string came from the server, so it is bounded here and
 * escaped by the renderers like anything else a server supplies.
 */
export interface CertificateFacts {
  /** The subject as `CN=…, O=…`; empty when the certificate has none (cert-manager leaves it empty). */
  readonly subject: string;
  readonly issuer: string;
  /** The DNS names of its subjectAltName, at most {@link MAX_NAMES_KEPT}. */
  readonly dnsNames: readonly string[];
  /** The IP addresses of its subjectAltName, at most {@link MAX_NAMES_KEPT}. */
  readonly ipAddresses: readonly string[];
  /** How many names the subjectAltName holds in all, when more than were kept. */
  readonly namesOmitted?: number;
  /** NotBefore and NotAfter, ISO 8601 in UTC. */
  readonly notBefore: string;
  readonly notAfter: string;
}

/** How many subjectAltName entries of each kind a report keeps. */
export const MAX_NAMES_KEPT = 16;

/** Whether the server's certificate leads to a trusted authority. */
export type CertificateTrust =
  | { readonly kind: 'verified'; readonly anchor: TrustAnchor }
  | { readonly kind: 'unknown-authority'; readonly anchor: TrustAnchor; readonly detail: string }
  /** `--server-ca-file` was given but could not be read (e.g. the chart's optional Secret is missing). */
  | { readonly kind: 'no-ca'; readonly detail: string }
  /** `--server-insecure-skip-verify`: nothing was checked. */
  | { readonly kind: 'skipped' };

/** What a certificate was verified against: `--server-ca-file`, or the system roots without one. */
export type TrustAnchor = { readonly kind: 'ca-file'; readonly path: string } | { readonly kind: 'system' };

/**
 * What the transport of the gRPC port turned out to be, when that is more than "plaintext, as
 * expected". Absent from {@link ServerProbes} for a plaintext port probed in plaintext, and when the
 * port could not be reached at all (the health error says why).
 */
export type ServerTransport =
  /** `--server-tls on`, and the port answered HTTP/2 without TLS. */
  | { readonly kind: 'plaintext-port' }
  /** `--server-tls off`, and the port speaks TLS. */
  | { readonly kind: 'tls-port'; readonly certificate?: CertificateFacts }
  /** The port speaks TLS and the doctor spoke TLS to it. */
  | {
      readonly kind: 'tls';
      /** The name the certificate was checked for. */
      readonly serverName: string;
      readonly certificate: CertificateFacts;
      readonly trust: CertificateTrust;
      /** Whether the certificate carries `serverName` (always true under skip-verify: not checked). */
      readonly nameMatches: boolean;
      /** The server ended the session after the handshake; absent when it went on to speak HTTP/2. */
      readonly refused?: SessionRefusal;
      /** Whether a client certificate was presented. */
      readonly clientCertificateSent: boolean;
    }
  /** The port speaks TLS but ended the handshake before showing a certificate. */
  | { readonly kind: 'tls-refused'; readonly refusal: SessionRefusal; readonly clientCertificateSent: boolean };

/** Why a TLS server ended a session: the alert or error, and whether it asked for a client certificate. */
export interface SessionRefusal {
  readonly error: string;
  readonly clientCertificateRequired: boolean;
}

/** Results of the gRPC probes of the server; absent entirely under `--config-only`. */
export interface ServerProbes {
  readonly location: ServerLocation;
  /**
   * Present when the server was located and a health call was made (not when TLS findings made one
   * pointless: a port of the other protocol, a refused session).
   */
  readonly health?: GrpcHealthResult;
  /** What the gRPC port speaks, when it is not plain plaintext; see {@link ServerTransport}. */
  readonly transport?: ServerTransport;
  /**
   * How the gRPC port made a fresh pod wait before it accepted a connection (see settle.ts); absent
   * when its first connection was accepted, and outside a pod's settle window.
   */
  readonly settling?: Settling;
}

/**
 * Results of the three routes of the server's controller-facing listener (`:8081`). Absent when the
 * server could not be located, under `--config-only`, and in a monitor that was not let probe that
 * listener (its pod is not the controller's shape by default: see docs/monitor.md).
 */
export interface RouteProbes {
  /** The base of the listener, e.g. `http://host:8081`. */
  readonly base: string;
  readonly snapshot: HttpResult;
  readonly policy: HttpResult;
  readonly probe: HttpResult;
  /** Whether a bearer token was sent with GET /snapshot. */
  readonly tokenSent: boolean;
  /** How the listener's port made a fresh pod wait before it accepted a connection (see settle.ts). */
  readonly settling?: Settling;
}

/** Everything the network probes observed in one run. */
export interface ProbeResults {
  /** Absent under `--config-only`. */
  readonly server?: ServerProbes;
  /** Absent when the listener was not probed (see {@link RouteProbes}). */
  readonly routes?: RouteProbes;
  /**
   * Dial outcome per published endpoint string, as stored in the CacheBackend status. Absent under
   * `--config-only` (endpoint presence is judged, reachability is not).
   */
  readonly dials?: ReadonlyMap<string, DialResult>;
}
