/**
 * `host:port` splitting and joining with the rules of Go's `net.SplitHostPort` / `net.JoinHostPort`,
 * which is what the upstream doctor used for `--server-endpoint` and for the CacheBackend dial
 * (docs/upstream.md ).
 *
 * @module
 */

/** A split `host:port`; `port` may be empty (`host:`), exactly as Go allows. */
export interface HostPort {
  readonly host: string;
  readonly port: string;
}

export type SplitResult = ({ readonly ok: true } & HostPort) | { readonly ok: false; readonly error: string };

function fail(address: string, why: string): SplitResult {
  return { ok: false, error: `address ${address}: ${why}` };
}

/**
 * Splits `s` into host and port. The port is whatever follows the last colon; a host that contains
 * a colon must be bracketed (`[::1]:9090`), and the brackets are removed from the returned host.
 */
export function splitHostPort(s: string): SplitResult {
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return fail(s, 'no port (expected host:port)');

  let host: string;
  // Positions before which a stray '[' (resp. ']') cannot occur once brackets were consumed.
  let openFrom = 0;
  let closeFrom = 0;
  if (s.startsWith('[')) {
    const close = s.indexOf(']');
    if (close < 0) return fail(s, "'[' without a matching ']'");
    if (close + 1 === s.length) return fail(s, 'no port (expected host:port)');
    if (close + 1 !== lastColon) {
      return s[close + 1] === ':' ? fail(s, 'too many colons') : fail(s, 'no port (expected host:port)');
    }
    host = s.slice(1, close);
    openFrom = 1;
    closeFrom = close + 1;
  } else {
    host = s.slice(0, lastColon);
    if (host.includes(':')) return fail(s, 'too many colons');
  }
  if (s.indexOf('[', openFrom) >= 0) return fail(s, "stray '['");
  if (s.indexOf(']', closeFrom) >= 0) return fail(s, "stray ']'");
  return { ok: true, host, port: s.slice(lastColon + 1) };
}

/** Joins host and port, bracketing a host that contains a colon (an IPv6 literal). */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
