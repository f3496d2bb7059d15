import { isIP } from 'node:net';
import { splitHostPort } from '../go/hostport.ts';
import { UsageError, type ServerEndpoint } from './options.ts';

/** The gRPC port of the cache-plane server when `--server-endpoint` names none. */
export const DEFAULT_GRPC_PORT = '9090';

const DNS_NAME =
  /^(?=.{1,253}\.?$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** A host name (DNS syntax, `_` allowed) or an IP address. */
export function validHost(host: string): boolean {
  return isIP(host) !== 0 || DNS_NAME.test(host);
}

/**
 * Parses `--server-endpoint` as `host[:grpcPort]`. Unlike upstream, which turned a value with a scheme
 * or a malformed host into a target that could never work, such values are refused up front.
 * Accepted: `host`, `host:19090`, `10.0.0.1`, `::1`, `[::1]`, `[::1]:9090`.
 */
export function parseServerEndpoint(text: string): ServerEndpoint {
  const bad = (why: string) => new UsageError(`invalid --server-endpoint ${JSON.stringify(text)}: ${why}`);
  if (text.includes('://')) throw bad('give host[:port] without a scheme; TLS on the gRPC port is set with --server-tls');
  const split = splitHostPort(text);
  let host: string;
  let grpcPort: string;
  if (split.ok) {
    ({ host, port: grpcPort } = split);
  } else if (/^\[[^\]]*\]$/.test(text)) {
    host = text.slice(1, -1);
    grpcPort = DEFAULT_GRPC_PORT;
  } else {
    host = text;
    grpcPort = DEFAULT_GRPC_PORT;
  }
  if (!validHost(host)) throw bad(`${JSON.stringify(host)} is not a host name or IP address`);
  if (/^\[/.test(text) && isIP(host) !== 6) throw bad('only an IPv6 address may stand in brackets');
  if (!/^\d{1,5}$/.test(grpcPort) || Number(grpcPort) < 1 || Number(grpcPort) > 65535) {
    throw bad(`port ${JSON.stringify(grpcPort)} is not a number from 1 to 65535`);
  }
  return { host, grpcPort };
}
