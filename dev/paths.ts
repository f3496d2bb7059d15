/**
 * Where the development tools find things: the repository, and the cache outside it that `hack/` builds
 * into. The one place these are computed in TypeScript; `hack/lib.sh` computes the cache root for the
 * shell scripts by the same rule (a test keeps the two equal).
 *
 * @module
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository's root folder. */
export const PROJECT_ROOT = resolve(import.meta.dirname, '..');

/**
 * The cache root: `$INFERENCECACHE_DOCTOR_CACHE_DIR`, else `$XDG_CACHE_HOME/inferencecache-doctor`,
 * else `~/.cache/inferencecache-doctor`. An empty variable counts as unset, as in the shell's
 * `${VAR:-default}`.
 */
export function cacheRoot(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const set = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  return (
    set('INFERENCECACHE_DOCTOR_CACHE_DIR') ??
    join(set('XDG_CACHE_HOME') ?? join(set('HOME') ?? homedir(), '.cache'), 'inferencecache-doctor')
  );
}
