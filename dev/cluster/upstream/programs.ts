/**
 * The real product's programs and cert-manager's, where `hack/build-tools.sh upstream cert-manager`
 * puts them (hack/lib.sh's layout: `<cache>/bin/upstream-<UPSTREAM_COMMIT>/`,
 * `<cache>/bin/cert-manager-<CERT_MANAGER_VERSION>/`), and the source trees beside the project they are
 * built from and read by kustomize (`../shared/upstream`, `../shared/thirdparty`).
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readPinnedVersions } from '../controlplane.ts';
import { PROJECT_ROOT, cacheRoot } from '../../paths.ts';

/** The product's source tree (read-only reference data): its `config/` is what kustomize renders. */
export function upstreamSourceDir(): string {
  return resolve(PROJECT_ROOT, process.env['INFERENCECACHE_DOCTOR_UPSTREAM_DIR'] || '../shared/upstream');
}

/** The third-party sources beside the project (hack/lib.sh's THIRDPARTY_SRC_DIR, by the same rule): cert-manager's commands, Flux's helm-controller. */
export function thirdpartySourceDir(): string {
  return resolve(PROJECT_ROOT, process.env['INFERENCECACHE_DOCTOR_THIRDPARTY_DIR'] || '../shared/thirdparty');
}

/** The product's programs, built static from its tree. */
export interface UpstreamPrograms {
  readonly controller: string;
  readonly server: string;
  readonly kveventSubscriber: string;
  readonly kveventFakeEngine: string;
  /** The upstream CLI: `inferencecache doctor`, the reference behaviour the parity tests compare with. */
  readonly cli: string;
}

/** cert-manager's three components. */
export interface CertManagerPrograms {
  readonly controller: string;
  readonly webhook: string;
  readonly cainjector: string;
}

/** The versions that key the programs and tag their images. */
export function upstreamVersions(): { readonly commit: string; readonly certManager: string } {
  const v = readPinnedVersions();
  return { commit: v['UPSTREAM_COMMIT'] ?? 'unknown', certManager: v['CERT_MANAGER_VERSION'] ?? 'unknown' };
}

export function upstreamPrograms(): UpstreamPrograms {
  const dir = join(cacheRoot(), 'bin', `upstream-${upstreamVersions().commit}`);
  return {
    controller: join(dir, 'controller'),
    server: join(dir, 'server'),
    kveventSubscriber: join(dir, 'kvevent-subscriber'),
    kveventFakeEngine: join(dir, 'kvevent-fake-engine'),
    cli: join(dir, 'inferencecache'),
  };
}

export function certManagerPrograms(): CertManagerPrograms {
  const dir = join(cacheRoot(), 'bin', `cert-manager-${upstreamVersions().certManager}`);
  return { controller: join(dir, 'controller'), webhook: join(dir, 'webhook'), cainjector: join(dir, 'cainjector') };
}

/**
 * cert-manager's module in the Go module cache (its chart, with the CRDs as templates): building its
 * components downloads it.
 */
export function certManagerChartDir(): string {
  const gomodcache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  return join(
    gomodcache,
    'github.com',
    'cert-manager',
    `cert-manager@${upstreamVersions().certManager}`,
    'deploy',
    'charts',
    'cert-manager',
  );
}

/** What running the real product needs beyond the node; empty when it can run. */
export function missingForUpstream(): string[] {
  const programs: readonly string[] = [
    ...Object.values<string>({ ...upstreamPrograms() }),
    ...Object.values<string>({ ...certManagerPrograms() }),
  ];
  const missing = programs.filter((f) => !existsSync(f));
  if (missing.length > 0) missing.push('(hack/build-tools.sh upstream cert-manager)');
  if (!existsSync(join(upstreamSourceDir(), 'config', 'default', 'kustomization.yaml')))
    missing.push(`the product's source tree at ${upstreamSourceDir()}`);
  try {
    const chart = certManagerChartDir();
    if (!existsSync(join(chart, 'Chart.yaml'))) missing.push(`cert-manager's chart at ${chart}`);
  } catch (err) {
    missing.push(`cert-manager's chart (go env GOMODCACHE failed: ${(err as Error).message.split('\n')[0] ?? ''})`);
  }
  return missing;
}
