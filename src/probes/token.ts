import { exists, readOperatorFile } from '../files/operator-file.ts';
import { goTrimSpace } from '../go/strings.ts';

/** The bearer token for GET /snapshot, and a warning for stderr when a token file could not be read. */
export interface BearerToken {
  readonly token: string;
  readonly warning?: string;
}

/** The token files a pod may hold, by their in-pod paths. */
export interface TokenFiles {
  /** The projected token with the audience `/snapshot` accepts, as the controller pod mounts it. */
  readonly controllerToken: string;
  /** The pod's ServiceAccount token (API-server audience; `/snapshot` refuses it). */
  readonly serviceAccountToken: string;
}

/**
 * Reads the bearer token for GET /snapshot: the `--snapshot-token-file` flag's file (`''`: no token),
 * else the controller-audience token when it exists, since the ServiceAccount token can never pass
 * `/snapshot`, else the ServiceAccount token. A missing file means no token; any other read failure
 * (a file that is no regular file or too large among them) means no token and a warning.
 */
export async function readBearerToken(flag: string | undefined, files: TokenFiles, signal?: AbortSignal): Promise<BearerToken> {
  if (flag === '') return { token: '' };
  const path = flag ?? (exists(files.controllerToken) ? files.controllerToken : files.serviceAccountToken);
  const read = await readOperatorFile(path, 'token', signal);
  if (read.ok) return { token: goTrimSpace(read.bytes.toString('utf8')) };
  if (read.missing) return { token: '' };
  return {
    token: '',
    warning: `could not read --snapshot-token-file ${JSON.stringify(path)} (${read.reason}); probing /snapshot without a token`,
  };
}
