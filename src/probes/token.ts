import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { inContainer } from '../cluster/container-root.ts';
import { goTrimSpace } from '../report/gofmt.ts';

/** The projected token with the audience `/snapshot` accepts, as the controller pod mounts it. */
export const CONTROLLER_TOKEN_PATH = '/var/run/secrets/inferencecache.io/controller-token/token';
/** The pod's ServiceAccount token (API-server audience; `/snapshot` refuses it). */
export const SERVICEACCOUNT_TOKEN_PATH = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** The bearer token for GET /snapshot, and a warning for stderr when a token file could not be read. */
export interface BearerToken {
  readonly token: string;
  readonly warning?: string;
}

/**
 * Reads the bearer token for GET /snapshot. Without `--snapshot-token-file` the controller-audience
 * token is preferred when it exists, since the ServiceAccount token can never pass `/snapshot`. A
 * missing file means no token; any other read failure means no token and a warning. Paths are in-pod
 * paths below `root` (see {@link inContainer}).
 */
export async function readBearerToken(flag: string | undefined, root: string): Promise<BearerToken> {
  if (flag === '') return { token: '' };
  const controllerToken = inContainer(root, CONTROLLER_TOKEN_PATH);
  const path = flag !== undefined ? inContainer(root, flag) : existsSync(controllerToken) ? controllerToken : inContainer(root, SERVICEACCOUNT_TOKEN_PATH);
  try {
    return { token: goTrimSpace(await readFile(path, 'utf8')) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { token: '' };
    const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    return { token: '', warning: `could not read --snapshot-token-file ${JSON.stringify(path)} (${why}); probing /snapshot without a token` };
  }
}
