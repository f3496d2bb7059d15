/**
 * Go modules in the module cache that `hack/build-tools.sh` fills (building Kubernetes downloads
 * `k8s.io/api` and `k8s.io/apimachinery` at the pinned version): some tests read their files, such as
 * the `.proto` definitions the protobuf declarations are held against. Optional on a workstation that
 * has not built the tools (those tests skip and say why), required under CI.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The Go module cache: `$GOMODCACHE`, what `go env GOMODCACHE` says, else Go's default. */
export function goModCache(): string {
  const fromEnv = process.env['GOMODCACHE'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    const said = execFileSync('go', ['env', 'GOMODCACHE'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (said !== '') return said;
  } catch {
    // No go on PATH: Go's default place.
  }
  return path.join(process.env['GOPATH'] ?? path.join(os.homedir(), 'go'), 'pkg', 'mod');
}

/** A module's folder in the cache, or why it is not there and whether a test must fail for it. */
export type GoModule = { readonly dir: string } | { readonly missing: string; readonly mustFail: boolean };

/** The folder of `module@version` in the module cache (module paths are lower-case here). */
export function goModule(module: string, version: string): GoModule {
  const dir = path.join(goModCache(), `${module}@${version}`);
  if (fs.existsSync(dir)) return { dir };
  return {
    missing: `${module}@${version} is not in the Go module cache (${goModCache()}); npm run tools:build puts it there`,
    mustFail: process.env['CI'] === 'true',
  };
}
