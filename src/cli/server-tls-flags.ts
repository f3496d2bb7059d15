import { UsageError } from './options.ts';
import { validHost } from './server-endpoint.ts';
import type { ServerTlsMode, ServerTlsOptions } from '../probes/server-transport.ts';

const MODES: readonly ServerTlsMode[] = ['auto', 'on', 'off'];

/** The TLS flags as parseArgs returns them. */
export interface ServerTlsFlagValues {
  readonly 'server-tls': string;
  readonly 'server-ca-file'?: string | undefined;
  readonly 'server-name'?: string | undefined;
  readonly 'server-insecure-skip-verify': boolean;
  readonly 'server-cert-file'?: string | undefined;
  readonly 'server-key-file'?: string | undefined;
}

/** A file flag, when given: an empty name is refused rather than read as "none". */
function fileFlag(flag: string, value: string | undefined): string | undefined {
  if (value === '') throw new UsageError(`invalid --${flag} "": name a file`);
  return value;
}

/**
 * Validates the gRPC TLS flags together. Combinations that cannot mean anything are refused up front:
 * TLS material with `--server-tls off`, a CA beside `--server-insecure-skip-verify`, half a client
 * certificate.
 */
export function parseServerTlsFlags(values: ServerTlsFlagValues): ServerTlsOptions {
  const mode = MODES.find((m) => m === values['server-tls']);
  if (mode === undefined) {
    throw new UsageError(`invalid --server-tls ${JSON.stringify(values['server-tls'])} (want one of: ${MODES.join(', ')})`);
  }
  const caFile = fileFlag('server-ca-file', values['server-ca-file']);
  const certFile = fileFlag('server-cert-file', values['server-cert-file']);
  const keyFile = fileFlag('server-key-file', values['server-key-file']);
  const serverName = values['server-name'];
  const skip = values['server-insecure-skip-verify'];
  if (serverName !== undefined && !validHost(serverName)) {
    throw new UsageError(`invalid --server-name ${JSON.stringify(serverName)}: want a DNS name or an IP address`);
  }
  if (mode === 'off') {
    const given = [
      caFile === undefined ? '' : '--server-ca-file',
      serverName === undefined ? '' : '--server-name',
      skip ? '--server-insecure-skip-verify' : '',
      certFile === undefined ? '' : '--server-cert-file',
      keyFile === undefined ? '' : '--server-key-file',
    ].filter((f) => f !== '');
    if (given.length > 0) throw new UsageError(`${given.join(', ')} configure TLS, which --server-tls off turns off`);
  }
  if (skip && caFile !== undefined) {
    throw new UsageError(
      '--server-insecure-skip-verify accepts any certificate, so --server-ca-file would never be used: give one or the other',
    );
  }
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new UsageError('--server-cert-file and --server-key-file go together: a client certificate needs its key');
  }
  return {
    mode,
    insecureSkipVerify: skip,
    ...(caFile === undefined ? {} : { caFile }),
    ...(serverName === undefined ? {} : { serverName }),
    ...(certFile === undefined || keyFile === undefined ? {} : { clientCertificate: { certFile, keyFile } }),
  };
}
