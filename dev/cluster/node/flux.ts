/**
 * Flux beside the real node, as host processes: source-controller (its artifact server on loopback) and
 * helm-controller, each with the cluster's admin kubeconfig, watching every namespace, with their CRDs
 * and the `flux-system` namespace they report from. Sources are the node's OCI registry (TLS with its
 * own CA, htpasswd): an `OCIRepository` per chart, which a `HelmRelease` names in `chartRef`, as Flux's
 * documentation recommends for OCI charts. Facts and the recipe: docs/real-node.md, "Flux".
 *
 * Every process runs from a path inside the node's folder (a symlink to its program), so its command
 * line names that folder and the node's teardown and leftovers check cover it.
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { AddOnOptions } from './add-on-options.ts';
import { freePorts, httpGetOk, readPinnedVersions, spawnLogged, waitFor } from '../controlplane.ts';
import { applyCrds, applyObjects, loadYamlFile, type KubeObject } from '../manifests.ts';
import { cacheRoot } from '../../paths.ts';
import { thirdpartySourceDir } from '../upstream/programs.ts';

/** The namespace Flux's controllers report from (`RUNTIME_NAMESPACE`), as `flux install` makes it. */
export const FLUX_NAMESPACE = 'flux-system';

/** The API groups and versions the tests and the README's manifests use. */
export const HELM_RELEASES = { group: 'helm.toolkit.fluxcd.io', version: 'v2', plural: 'helmreleases' } as const;
export const OCI_REPOSITORIES = { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'ocirepositories' } as const;

/** What Flux needs on this machine, where hack/build-tools.sh puts it. */
export interface FluxPrograms {
  readonly sourceController: string;
  readonly helmController: string;
  /** source-controller's CRDs, in its module's source (kept beside the build). */
  readonly sourceCrds: string;
  /** helm-controller's CRD, in its release tree under ../shared/thirdparty. */
  readonly helmCrds: string;
}

/** Flux's programs for the pinned versions (same layout as hack/lib.sh). */
export function fluxPrograms(): FluxPrograms {
  const v = readPinnedVersions();
  const source = v['FLUX_SOURCE_CONTROLLER_VERSION'] ?? 'unknown';
  const helm = v['FLUX_HELM_CONTROLLER_VERSION'] ?? 'unknown';
  const helmLib = v['FLUX_HELM_VERSION'] ?? 'unknown';
  return {
    sourceController: join(cacheRoot(), 'bin', `flux-source-controller-${source}`, 'source-controller'),
    helmController: join(cacheRoot(), 'bin', `flux-helm-controller-${helm}-helm-${helmLib}`, 'helm-controller'),
    sourceCrds: join(cacheRoot(), 'work', `flux-source-controller-${source}`, 'src', 'config', 'crd', 'bases'),
    helmCrds: join(thirdpartySourceDir(), `flux-helm-controller-${helm}`, 'config', 'crd', 'bases'),
  };
}

/** What Flux needs and this machine lacks; empty when it can run. */
export function missingForFlux(): string[] {
  const p = fluxPrograms();
  return [p.sourceController, p.helmController, join(p.sourceCrds, 'source.toolkit.fluxcd.io_ocirepositories.yaml'), p.helmCrds].filter(
    (f) => !existsSync(f),
  );
}

/** The processes {@link startFlux} starts, in the order they are stopped (helm-controller first: it uses the other's artifacts). */
export const FLUX_PROCESSES = ['flux-helm-controller', 'flux-source-controller'] as const;

/** Running Flux controllers. */
export interface Flux {
  /** `http://127.0.0.1:<port>`: where source-controller serves artifacts and helm-controller fetches them. */
  readonly artifactUrl: string;
  /** The folder of both controllers' logs. */
  readonly logDir: string;
}

/** Starts source-controller and helm-controller after applying their CRDs and `flux-system`. */
export async function startFlux(opts: AddOnOptions): Promise<Flux> {
  const { kc, dir, detached, log, started } = opts;
  const programs = fluxPrograms();
  const missing = missingForFlux();
  if (missing.length > 0) throw new Error(`Flux needs: ${missing.join(', ')} (hack/build-tools.sh flux)`);
  const home = join(dir, 'flux');
  const paths = { bin: join(home, 'bin'), storage: join(home, 'storage'), tmp: join(home, 'tmp') };
  for (const p of Object.values(paths)) mkdirSync(p, { recursive: true, mode: 0o700 });
  // A start that failed before left its links: made afresh.
  for (const [link, target] of [
    ['source-controller', programs.sourceController],
    ['helm-controller', programs.helmController],
  ] as const) {
    rmSync(join(paths.bin, link), { force: true });
    symlinkSync(target, join(paths.bin, link));
  }

  log('applying the Flux CRDs (source-controller, helm-controller) and the flux-system namespace');
  const yamlFiles = (folder: string) =>
    readdirSync(folder)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(folder, f));
  const crds = [programs.sourceCrds, programs.helmCrds].flatMap(yamlFiles).flatMap((f) => loadYamlFile(f));
  await applyCrds(kc, crds, 60_000);
  const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: FLUX_NAMESPACE } };
  await applyObjects(kc, [namespace]);

  const [storagePort, sourceMetrics, sourceHealth, helmMetrics, helmHealth] = (await freePorts(5)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    TMPDIR: paths.tmp,
    KUBECONFIG: opts.kubeconfigPath,
    RUNTIME_NAMESPACE: FLUX_NAMESPACE,
  };
  const artifactUrl = `http://127.0.0.1:${storagePort}`;
  log(`starting Flux source-controller (artifacts on ${artifactUrl})`);
  const source = started(
    'flux-source-controller',
    spawnLogged(
      join(paths.bin, 'source-controller'),
      [
        `--storage-path=${paths.storage}`,
        `--storage-addr=127.0.0.1:${storagePort}`,
        `--storage-adv-addr=127.0.0.1:${storagePort}`,
        `--metrics-addr=127.0.0.1:${sourceMetrics}`,
        `--health-addr=127.0.0.1:${sourceHealth}`,
        '--watch-all-namespaces=true',
        '--enable-leader-election=false',
        '--log-level=info',
      ],
      join(home, 'source-controller.log'),
      detached,
      env,
    ),
  );
  log('starting Flux helm-controller');
  const helm = started(
    'flux-helm-controller',
    spawnLogged(
      join(paths.bin, 'helm-controller'),
      [
        `--metrics-addr=127.0.0.1:${helmMetrics}`,
        `--health-addr=127.0.0.1:${helmHealth}`,
        '--watch-all-namespaces=true',
        '--enable-leader-election=false',
        '--log-level=info',
      ],
      join(home, 'helm-controller.log'),
      detached,
      env,
    ),
  );
  await waitFor('Flux source-controller', 120_000, source, join(home, 'source-controller.log'), () =>
    httpGetOk(`http://127.0.0.1:${sourceHealth}/readyz`),
  );
  await waitFor('Flux helm-controller', 120_000, helm, join(home, 'helm-controller.log'), () =>
    httpGetOk(`http://127.0.0.1:${helmHealth}/readyz`),
  );
  return { artifactUrl, logDir: home };
}
