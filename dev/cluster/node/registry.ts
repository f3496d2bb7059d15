/**
 * The node's image registry: the CNCF distribution registry (`hack/build-tools.sh registry`) on a
 * loopback port, with TLS from a CA of its own and htpasswd (bcrypt) authentication, so that images and
 * the chart are pulled the way users pull them. containerd trusts the CA through its registry hosts
 * folder (`hosts.toml`), never by skipping verification; the kubelet hands it a pod's pull secret.
 *
 * Everything lives in the node's folder (the registry's command line names its config there, which is
 * how teardown recognises the process).
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { IMAGE_ARCHIVE, buildah, buildahOutput } from '../../image/buildah.ts';
import { PACKAGE } from '../../package.ts';
import { cacheRoot } from '../../paths.ts';
import { freePorts, readPinnedVersions, spawnLogged, waitFor } from '../controlplane.ts';
import { createCa, signedCert } from '../pki/openssl.ts';

/** The registry's program (hack/lib.sh's layout) and Debian's htpasswd. */
export function registryPrograms(): { readonly registry: string; readonly htpasswd: string } {
  const version = readPinnedVersions()['REGISTRY_VERSION'] ?? 'unknown';
  return { registry: join(cacheRoot(), 'bin', `registry-${version}`, 'registry'), htpasswd: '/usr/bin/htpasswd' };
}

/** A running registry and what a client needs to use it. */
export interface NodeRegistry {
  /** `127.0.0.1:<port>`: the host part of every image reference and of `oci://` chart references. */
  readonly host: string;
  /** The CA its certificate leads to (PEM). */
  readonly caFile: string;
  /** A folder holding only `ca.crt`, for `--cert-dir` of buildah and skopeo. */
  readonly certDir: string;
  readonly user: string;
  readonly password: string;
  /** containerd's registry hosts folder (`config_path`), trusting the CA for this host. */
  readonly hostsDir: string;
  readonly pid: number;
}

/** The registry's configuration: TLS with the leaf signed by its CA, htpasswd, storage in `dir`. */
function config(dir: string, port: number): string {
  return `version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: ${join(dir, 'data')}
  delete:
    enabled: true
http:
  addr: 127.0.0.1:${port}
  secret: ${randomBytes(16).toString('hex')}
  tls:
    certificate: ${join(dir, 'registry.crt')}
    key: ${join(dir, 'registry.key')}
auth:
  htpasswd:
    realm: inferencecache-test
    path: ${join(dir, 'htpasswd')}
`;
}

/** The status `GET /v2/` answers, over TLS verified against the registry's CA, with `auth` or none. */
export function v2Status(registry: Pick<NodeRegistry, 'host' | 'caFile'>, auth?: string): Promise<number> {
  const [hostname, port] = registry.host.split(':') as [string, string];
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port: Number(port),
        path: '/v2/',
        ca: readFileSync(registry.caFile),
        ...(auth === undefined ? {} : { auth }),
        timeout: 2_000,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 2 s')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * containerd's hosts folder for the registry: pull and resolve from it, trusting its CA. The CA is given
 * to the `server` too: when the host answers that an image is not there, containerd tries the server
 * as a fallback, and without the CA the kubelet would report a certificate error instead of "not found".
 */
function writeHosts(hostsDir: string, host: string, caFile: string): void {
  const dir = join(hostsDir, host);
  mkdirSync(dir, { recursive: true });
  const ca = JSON.stringify(caFile);
  writeFileSync(
    join(dir, 'hosts.toml'),
    `server = "https://${host}"\nca = ${ca}\n\n[host."https://${host}"]\n  capabilities = ["pull", "resolve"]\n  ca = ${ca}\n`,
  );
}

/** Starts the registry under `nodeDir/registry` (`onStart` gets its pid at once) and waits until `/v2/` asks for credentials. */
export async function startRegistry(nodeDir: string, detached: boolean, onStart: (pid: number) => void): Promise<NodeRegistry> {
  const { registry, htpasswd } = registryPrograms();
  const dir = join(nodeDir, 'registry');
  const certDir = join(dir, 'certs');
  mkdirSync(certDir, { recursive: true });
  createCa(dir, 'inferencecache test registry CA');
  signedCert(
    dir,
    'registry',
    '/CN=localhost',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n',
  );
  const caFile = join(dir, 'ca.crt');
  writeFileSync(join(certDir, 'ca.crt'), readFileSync(caFile));
  const user = 'pusher';
  const password = randomBytes(12).toString('hex');
  writeFileSync(join(dir, 'htpasswd'), execFileSync(htpasswd, ['-Bbn', user, password], { encoding: 'utf8' }));
  const [port] = (await freePorts(1)) as [number];
  const configFile = join(dir, 'config.yml');
  writeFileSync(configFile, config(dir, port));
  const log = join(nodeDir, 'registry.log');
  const pid = spawnLogged(registry, ['serve', configFile], log, detached);
  onStart(pid);
  const host = `127.0.0.1:${port}`;
  await waitFor('registry', 30_000, pid, log, async () => (await v2Status({ host, caFile }).catch(() => 0)) === 401);
  const hostsDir = join(dir, 'containerd-hosts');
  writeHosts(hostsDir, host, caFile);
  return { host, caFile, certDir, user, password, hostsDir, pid };
}

/** The pull secret the tests and `cluster:up` give the doctor's pods: the registry's credentials. */
export const PULL_SECRET_NAME = 'registry-creds';

/** The doctor's repository in the registry. */
export function doctorRepository(registry: Pick<NodeRegistry, 'host'>): string {
  return `${registry.host}/inferencecache-doctor`;
}

/**
 * Pushes the image `npm run image` wrote (`dist/inferencecache-doctor.oci.tar`) to the registry, tagged
 * with the project's version, as a release pushes it: the node pulls it from there, with a pull secret.
 */
export function publishDoctorImage(registry: NodeRegistry): void {
  pushArchive(registry, IMAGE_ARCHIVE, `${doctorRepository(registry)}:${PACKAGE.version}`);
}

/** Pushes the image of an OCI archive to `ref` in the registry, with its credentials and CA. */
export function pushArchive(registry: NodeRegistry, archive: string, ref: string): void {
  // buildah pushes from its storage: the archive is read into it (a no-op when it holds it already).
  const id = buildahOutput(['pull', '--quiet', `oci-archive:${archive}`]);
  buildah(['push', '--quiet', '--cert-dir', registry.certDir, '--creds', `${registry.user}:${registry.password}`, id, `docker://${ref}`]);
}

/** The `.dockerconfigjson` of a pull secret for `host` with `user`:`password`, base64 as a Secret's data holds it. */
export function dockerConfigJson(host: string, user: string, password: string): string {
  const auth = Buffer.from(`${user}:${password}`).toString('base64');
  return Buffer.from(JSON.stringify({ auths: { [host]: { username: user, password, auth } } })).toString('base64');
}

/** A `kubernetes.io/dockerconfigjson` Secret holding the registry's credentials, for `namespace`. */
export function pullSecret(registry: NodeRegistry, namespace: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: PULL_SECRET_NAME, namespace },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': dockerConfigJson(registry.host, registry.user, registry.password) },
  };
}

/** The chart values that run the doctor image from the registry: pulled (the default policy) with the pull secret. */
export function doctorImageValues(registry: Pick<NodeRegistry, 'host'>): string[] {
  return [`image.repository=${doctorRepository(registry)}`, `image.tag=${PACKAGE.version}`, `imagePullSecrets[0].name=${PULL_SECRET_NAME}`];
}

/** Where charts are pushed in the registry (`helm push` takes it). */
export function chartsRepository(registry: Pick<NodeRegistry, 'host'>): string {
  return `oci://${registry.host}/charts`;
}

/** The doctor's chart in the registry, as `helm install` and `helm show` name it. */
export function doctorChart(registry: Pick<NodeRegistry, 'host'>): string {
  return `${chartsRepository(registry)}/inferencecache-doctor`;
}

/** The chart's reference in the registry and the flags that reach it: what `helm install` takes instead of a folder. */
export function doctorChartArgs(registry: Pick<NodeRegistry, 'host' | 'caFile'>): string[] {
  return [doctorChart(registry), '--version', PACKAGE.version, '--ca-file', registry.caFile];
}

/** `helm registry login` for the registry, in whatever Helm configuration `helm` runs with. */
export function registryLoginArgs(registry: NodeRegistry): string[] {
  return ['registry', 'login', registry.host, '--username', registry.user, '--password', registry.password, '--ca-file', registry.caFile];
}

/**
 * Runs `helm` with the node's own Helm configuration (under the registry's folder, where
 * {@link publishChart} logged in to the registry), against `kubeconfig` when given; returns its
 * output, and throws with its stderr when it fails.
 */
export function nodeHelm(
  helm: string,
  nodeDir: string,
  args: readonly string[],
  opts: { readonly kubeconfig?: string; readonly timeoutMs?: number } = {},
): string {
  const home = join(nodeDir, 'registry', 'helm');
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_DATA_HOME: join(home, 'data'),
    ...(opts.kubeconfig === undefined ? {} : { KUBECONFIG: opts.kubeconfig }),
  };
  try {
    return execFileSync(helm, [...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: opts.timeoutMs ?? 600_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`helm ${args.slice(0, 2).join(' ')}: ${(e.stderr ?? '').trim() || e.message}`, { cause: err });
  }
}

/**
 * Packages `chartDir` and pushes it to the registry as an OCI artifact, as a release does, with `helm`
 * and the node's Helm configuration ({@link nodeHelm}; the login stays there). `version` (the chart's
 * own by default) makes a new release of the same chart, as a new tag.
 */
export function publishChart(registry: NodeRegistry, helm: string, chartDir: string, nodeDir: string, version = PACKAGE.version): void {
  const home = join(nodeDir, 'registry', 'helm');
  nodeHelm(helm, nodeDir, ['package', chartDir, '--version', version, '--destination', home]);
  nodeHelm(helm, nodeDir, registryLoginArgs(registry));
  nodeHelm(helm, nodeDir, [
    'push',
    join(home, `inferencecache-doctor-${version}.tgz`),
    chartsRepository(registry),
    '--ca-file',
    registry.caFile,
  ]);
}
