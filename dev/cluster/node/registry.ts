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

/** containerd's hosts folder for the registry: pull and resolve from it, trusting its CA. */
function writeHosts(hostsDir: string, host: string, caFile: string): void {
  const dir = join(hostsDir, host);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'hosts.toml'),
    `server = "https://${host}"\n\n[host."https://${host}"]\n  capabilities = ["pull", "resolve"]\n  ca = ${JSON.stringify(caFile)}\n`,
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
