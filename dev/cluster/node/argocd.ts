/**
 * Argo CD beside the real node, as an operator's cluster would run it but as host processes: Redis, the
 * repo-server (which renders charts with the Helm 4 built here) and the application-controller (which
 * syncs Applications into the test cluster through `ARGOCD_FAKE_IN_CLUSTER`), with the Application and
 * AppProject CRDs and the objects argocd-server would otherwise make (`argocd-cm`, `argocd-secret`, the
 * `default` AppProject). The chart is served as a Helm repository on loopback. Facts and the recipe:
 * docs/real-node.md, "Argo CD".
 *
 * Every process runs from a path inside the node's folder (a symlink to its program), so its command
 * line names that folder and the node's teardown and leftovers check cover it.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { AddOnOptions } from './add-on-options.ts';
import { freePorts, httpGetOk, readPinnedVersions, resolveBinaries, spawnLogged, waitFor } from '../controlplane.ts';
import { applyCrds, applyObjects, loadYamlFile, type KubeObject } from '../manifests.ts';
import { PROJECT_ROOT, cacheRoot } from '../../paths.ts';

/** The namespace Argo CD's objects live in. */
export const ARGOCD_NAMESPACE = 'argocd';
/** The name of the chart in the Helm repository (chart/Chart.yaml). */
export const CHART_NAME = 'inferencecache-doctor';

/** What Argo CD needs on this machine, where hack/build-tools.sh and Debian put it. */
export interface ArgoCdPrograms {
  /** The multi-call binary (`hack/build-tools.sh argocd`). */
  readonly argocd: string;
  /** The folder of its Application and AppProject CRDs, in the module's source. */
  readonly crds: string;
  /** Helm 4, which the repo-server runs to render charts. */
  readonly helm: string;
  readonly redis: string;
}

/** Argo CD's programs for the pinned versions (same layout as hack/lib.sh). */
export function argoCdPrograms(): ArgoCdPrograms {
  const v = readPinnedVersions();
  const argocd = v['ARGOCD_VERSION'] ?? 'unknown';
  return {
    argocd: join(cacheRoot(), 'bin', `argocd-${argocd}`, 'argocd'),
    crds: join(cacheRoot(), 'work', `argocd-${argocd}`, 'src', 'manifests', 'crds'),
    helm: resolveBinaries().helm4,
    redis: '/usr/bin/redis-server',
  };
}

/** What Argo CD needs and this machine lacks; empty when it can run. */
export function missingForArgoCd(): string[] {
  const p = argoCdPrograms();
  return [p.argocd, join(p.crds, 'application-crd.yaml'), p.helm, p.redis].filter((f) => !existsSync(f));
}

/** A running Argo CD, and the Helm repository it reads the chart from. */
export interface ArgoCd {
  /** `http://127.0.0.1:<port>`: the repository's URL, as an Application's `source.repoURL`. */
  readonly helmRepoUrl: string;
  /** The chart version the repository holds first (chart/Chart.yaml's). */
  readonly chartVersion: string;
  /** Packages the chart again as `version` (a new revision for a sync) and re-indexes the repository. */
  readonly publishChart: (version: string) => void;
}

/** The processes {@link startArgoCd} starts, in the order they are stopped. */
export const ARGOCD_PROCESSES = ['argocd-application-controller', 'argocd-repo-server', 'redis', 'helm-repo'] as const;

/** The objects argocd-server would make, and the `default` AppProject that lets any Application sync. */
function argoCdObjects(): KubeObject[] {
  const labels = { 'app.kubernetes.io/part-of': 'argocd' };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ARGOCD_NAMESPACE } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm', namespace: ARGOCD_NAMESPACE, labels } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'argocd-secret', namespace: ARGOCD_NAMESPACE, labels } },
  ];
}

const DEFAULT_PROJECT: KubeObject = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'AppProject',
  metadata: { name: 'default', namespace: ARGOCD_NAMESPACE },
  spec: {
    sourceRepos: ['*'],
    destinations: [{ server: '*', namespace: '*' }],
    clusterResourceWhitelist: [{ group: '*', kind: '*' }],
  },
};

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs Helm 4 and throws with its output when it fails. */
function helm(bin: string, args: readonly string[], home: string): void {
  const run = spawnSync(bin, args, { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', HOME: home }, timeout: 120_000 });
  if (run.status !== 0) throw new Error(`helm ${args.join(' ')}: ${run.stderr || run.stdout}`);
}

/**
 * The handle on an Argo CD started under the node's folder `dir`, from what a state file keeps of it
 * (a shared node's, test/support/shared-node.ts): its Helm repository's address and the chart version
 * it first served.
 */
export function argoCdFrom(dir: string, helmRepoUrl: string, chartVersion: string): ArgoCd {
  const helmBin = argoCdPrograms().helm;
  const home = join(dir, 'argocd');
  const repo = join(home, 'helm-repo');
  const data = join(home, 'data');
  const publishChart = (version: string): void => {
    helm(helmBin, ['package', join(PROJECT_ROOT, 'chart'), '--version', version, '--destination', repo], data);
    helm(helmBin, ['repo', 'index', repo, '--url', helmRepoUrl], data);
  };
  return { helmRepoUrl, chartVersion, publishChart };
}

/** Starts Redis, the Helm repository, the repo-server and the application-controller; applies Argo CD's objects. */
export async function startArgoCd(opts: AddOnOptions): Promise<ArgoCd> {
  const { kc, dir, detached, log, started } = opts;
  const programs = argoCdPrograms();
  const missing = missingForArgoCd();
  if (missing.length > 0)
    throw new Error(`Argo CD needs: ${missing.join(', ')} (hack/build-tools.sh argocd; .ci/run installs redis-server)`);
  const home = join(dir, 'argocd');
  const paths = { bin: join(home, 'bin'), repo: join(home, 'helm-repo'), redis: join(home, 'redis'), data: join(home, 'data') };
  for (const p of [...Object.values(paths), join(paths.data, 'tls'), join(paths.data, 'ssh'), join(paths.data, 'gnupg')])
    mkdirSync(p, { recursive: true, mode: 0o700 });
  // Argo CD picks its component by the name it is run as; Helm is what the repo-server finds on PATH.
  for (const [link, target] of [
    ['argocd-repo-server', programs.argocd],
    ['argocd-application-controller', programs.argocd],
    ['helm', programs.helm],
  ] as const) {
    // A start that failed before left its links: made afresh.
    rmSync(join(paths.bin, link), { force: true });
    symlinkSync(target, join(paths.bin, link));
  }
  const [redisPort, repoPort, repoMetrics, controllerMetrics, helmRepoPort] = (await freePorts(5)) as [
    number,
    number,
    number,
    number,
    number,
  ];

  log(`starting Redis on 127.0.0.1:${redisPort}`);
  const redis = started(
    'redis',
    spawnLogged(
      programs.redis,
      [
        '--port',
        String(redisPort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        paths.redis,
        '--set-proc-title',
        'no',
      ],
      join(home, 'redis.log'),
      detached,
    ),
  );

  const chartVersion = String((parse(readFileSync(join(PROJECT_ROOT, 'chart', 'Chart.yaml'), 'utf8')) as { version: unknown }).version);
  const helmRepoUrl = `http://127.0.0.1:${helmRepoPort}`;
  const { publishChart } = argoCdFrom(dir, helmRepoUrl, chartVersion);
  publishChart(chartVersion);
  log(`serving the chart as a Helm repository on ${helmRepoUrl}`);
  const repo = started(
    'helm-repo',
    spawnLogged(
      process.execPath,
      [join(import.meta.dirname, 'helm-repo-server.ts'), paths.repo, String(helmRepoPort)],
      join(home, 'helm-repo.log'),
      detached,
    ),
  );

  log('applying the Argo CD CRDs, argocd-cm, argocd-secret and the default AppProject');
  await applyCrds(
    kc,
    ['application-crd.yaml', 'appproject-crd.yaml'].flatMap((f) => loadYamlFile(join(programs.crds, f))),
    60_000,
  );
  await applyObjects(kc, argoCdObjects());
  await applyObjects(kc, [DEFAULT_PROJECT]);

  const env = (name: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
    PATH: `${paths.bin}:${process.env['PATH'] ?? ''}`,
    HOME: paths.data,
    ARGOCD_BINARY_NAME: name,
    ...extra,
  });
  log(`starting the Argo CD repo-server on 127.0.0.1:${repoPort}`);
  const repoServer = started(
    'argocd-repo-server',
    spawnLogged(
      join(paths.bin, 'argocd-repo-server'),
      ['--port', String(repoPort), '--redis', `127.0.0.1:${redisPort}`, '--metrics-port', String(repoMetrics)],
      join(home, 'repo-server.log'),
      detached,
      env('argocd-repo-server', {
        ARGOCD_GPG_ENABLED: 'false',
        ARGOCD_TLS_DATA_PATH: join(paths.data, 'tls'),
        ARGOCD_SSH_DATA_PATH: join(paths.data, 'ssh'),
        GNUPGHOME: join(paths.data, 'gnupg'),
      }),
    ),
  );
  log('starting the Argo CD application-controller');
  const controller = started(
    'argocd-application-controller',
    spawnLogged(
      join(paths.bin, 'argocd-application-controller'),
      [
        '--namespace',
        ARGOCD_NAMESPACE,
        '--redis',
        `127.0.0.1:${redisPort}`,
        '--repo-server',
        `127.0.0.1:${repoPort}`,
        '--metrics-port',
        String(controllerMetrics),
      ],
      join(home, 'application-controller.log'),
      detached,
      env('argocd-application-controller', { ARGOCD_FAKE_IN_CLUSTER: 'true', KUBECONFIG: opts.kubeconfigPath }),
    ),
  );
  await waitFor('Redis', 30_000, redis, join(home, 'redis.log'), () => listening(redisPort));
  await waitFor('the Helm repository', 30_000, repo, join(home, 'helm-repo.log'), () => httpGetOk(`${helmRepoUrl}/index.yaml`));
  await waitFor('the Argo CD repo-server', 120_000, repoServer, join(home, 'repo-server.log'), () => listening(repoPort));
  await waitFor('the Argo CD application-controller', 120_000, controller, join(home, 'application-controller.log'), () =>
    httpGetOk(`http://127.0.0.1:${controllerMetrics}/metrics`),
  );
  return { helmRepoUrl, chartVersion, publishChart };
}
