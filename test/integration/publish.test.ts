// The release workflow's steps that can run here, against the development registry (TLS from its own
// CA, htpasswd): the block of docs/image.md, "Publishing by hand", run as it stands there. A manifest list of linux/amd64 and
// linux/arm64 built with buildah (the arm64 runtime stage only copies), signed by digest with a cosign
// key pair and verified, the chart pushed with that digest in its values and its Artifact Hub
// annotation and signed, and artifacthub-repo.yml pushed as the tag artifacthub.io with oras.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheRoot, PROJECT_ROOT } from '../../dev/paths.ts';
import { killGroup, readPinnedVersions } from '../../dev/cluster/controlplane.ts';
import { doctorChart, registryPrograms, startRegistry, type NodeRegistry } from '../../dev/cluster/node/registry.ts';
import { buildStandinBases } from '../../dev/image/bases.ts';
import { STORAGE } from '../../dev/image/buildah.ts';
import { PACKAGE } from '../../dev/package.ts';
import { parse } from 'yaml';
import { artifactHubAnnotationProblems, artifactHubRepoProblems } from '../support/artifacthub.ts';
import { HELM_MUST_RUN, helmBinaries } from '../support/helm.ts';

const COSIGN = join(cacheRoot(), 'bin', `cosign-${readPinnedVersions()['COSIGN_VERSION'] ?? 'unknown'}`, 'cosign');
const ORAS = join(cacheRoot(), 'bin', `oras-${readPinnedVersions()['ORAS_VERSION'] ?? 'unknown'}`, 'oras');
const HELM4 = helmBinaries().find((h) => h.name === 'Helm 4');
const needed = [
  registryPrograms().registry,
  registryPrograms().htpasswd,
  COSIGN,
  ORAS,
  HELM4?.bin ?? 'helm 4',
  '/usr/bin/buildah',
  '/usr/bin/mmdebstrap',
];
const missing = needed.filter((f) => !existsSync(f));
if (missing.length > 0 && HELM_MUST_RUN)
  throw new Error(`publishing must run under CI: missing ${missing.join(', ')} (.ci/run builds and installs them)`);
const skipReason = missing.length > 0 ? ` (skipped: missing ${missing.join(', ')}; run hack/build-tools.sh)` : '';

/** The block of docs/image.md between the publish markers, without its fence. */
function publishBlock(): string {
  const page = readFileSync(join(PROJECT_ROOT, 'docs/image.md'), 'utf8');
  const block = /<!-- publish:begin -->\n```sh\n([\s\S]*?)```\n<!-- publish:end -->/.exec(page)?.[1];
  if (block === undefined) throw new Error('docs/image.md has no publish block between its markers');
  return block;
}

/** `GET /v2/<path>` on the registry with its credentials, parsed as JSON. */
async function registryJson(registry: NodeRegistry, path: string, accept: string): Promise<Record<string, unknown>> {
  return JSON.parse(await registryText(registry, path, accept)) as Record<string, unknown>;
}

/** `GET /v2/<path>` on the registry with its credentials, as text (a blob is followed to its location). */
function registryText(registry: NodeRegistry, path: string, accept = '*/*'): Promise<string> {
  const [hostname, port] = registry.host.split(':') as [string, string];
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port: Number(port),
        path: `/v2/${path}`,
        ca: readFileSync(registry.caFile),
        auth: `${registry.user}:${registry.password}`,
        headers: { accept },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${res.statusCode ?? 0} ${body}`))));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const INDEX = 'application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.list.v2+json';

describe.skipIf(missing.length > 0)(`publishing: the block of docs/image.md against a registry of our own${skipReason}`, () => {
  const work = mkdtempSync(join(tmpdir(), 'icd-publish-'));
  let registry: NodeRegistry;
  let run: { code: number | null; stdout: string; stderr: string };
  const env = (): NodeJS.ProcessEnv => ({
    PATH: [dirname(COSIGN), dirname(ORAS), dirname(HELM4?.bin ?? ''), process.env['PATH'] ?? ''].join(':'),
    HOME: join(work, 'home'),
    HELM_CONFIG_HOME: join(work, 'home', 'helm-config'),
    HELM_CACHE_HOME: join(work, 'home', 'helm-cache'),
    HELM_DATA_HOME: join(work, 'home', 'helm-data'),
    CONTAINERS_STORAGE_CONF: join(work, 'storage.conf'),
    COSIGN_PASSWORD: 'test-only-key-password',
    REGISTRY: registry.host,
    VERSION: PACKAGE.version,
    REGISTRY_USER: registry.user,
    REGISTRY_PASSWORD: registry.password,
    CA_DIR: registry.certDir,
    WORK: work,
  });
  const cosign = (args: readonly string[], cwd = work) =>
    spawnSync(COSIGN, args, {
      cwd,
      env: { ...env(), SSL_CERT_FILE: registry.caFile, DOCKER_CONFIG: join(work, 'docker') },
      encoding: 'utf8',
    });

  beforeAll(async () => {
    mkdirSync(join(work, 'home'), { recursive: true });
    // The project's buildah storage (dev/image/buildah.ts), where the stand-in bases are.
    writeFileSync(
      join(work, 'storage.conf'),
      `[storage]\ndriver = "vfs"\ngraphroot = "${join(STORAGE, 'root')}"\nrunroot = "${join(STORAGE, 'run')}"\n`,
    );
    const bases = { amd64: buildStandinBases('amd64'), arm64: buildStandinBases('arm64') };
    registry = await startRegistry(join(work, 'node'), false, () => undefined);
    expect(cosign(['generate-key-pair']).status).toBe(0);
    const baseArgs = (arch: 'amd64' | 'arm64') =>
      `--pull-never --build-arg BUILD_IMAGE=${bases[arch].build} --build-arg RUNTIME_IMAGE=${bases[arch].runtime}`;
    const prelude = `base_args() { case "$1" in amd64) echo "${baseArgs('amd64')}" ;; arm64) echo "${baseArgs('arm64')}" ;; esac; }\n`;
    const result = spawnSync('bash', ['-c', `${prelude}${publishBlock()}`], {
      cwd: PROJECT_ROOT,
      env: env(),
      encoding: 'utf8',
      timeout: 600_000,
    });
    run = { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }, 900_000);

  afterAll(() => {
    if (registry !== undefined) killGroup(registry.pid, 'SIGTERM');
    const image = registry === undefined ? undefined : `${registry.host}/inferencecache-doctor:${PACKAGE.version}`;
    if (image !== undefined) {
      spawnSync('buildah', ['manifest', 'rm', image], { env: env(), stdio: 'ignore' });
      spawnSync('buildah', ['rmi', '--prune'], { env: env(), stdio: 'ignore' });
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('runs to its end and prints the pinned reference', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toMatch(
      new RegExp(`^${registry.host.replace('.', '\\.')}/inferencecache-doctor@sha256:[0-9a-f]{64}$`),
    );
  });

  it('the tag is a manifest list of linux/amd64 and linux/arm64, each image of its own architecture', async () => {
    const index = await registryJson(registry, `inferencecache-doctor/manifests/${PACKAGE.version}`, INDEX);
    const manifests = index['manifests'] as { digest: string; platform: { os: string; architecture: string } }[];
    expect(manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`).sort()).toEqual(['linux/amd64', 'linux/arm64']);
    const arm = manifests.find((m) => m.platform.architecture === 'arm64');
    const manifest = await registryJson(
      registry,
      `inferencecache-doctor/manifests/${arm?.digest ?? ''}`,
      'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json',
    );
    const config = await registryJson(registry, `inferencecache-doctor/blobs/${(manifest['config'] as { digest: string }).digest}`, '*/*');
    expect(config['architecture']).toBe('arm64');
    expect((config['config'] as { Entrypoint: string[] }).Entrypoint[0]).toBe('/nodejs/bin/node');
  });

  it('the signature verifies with the public key of the pair, and not with another', () => {
    const reference = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(cosign(['verify', '--key', 'cosign.pub', '--insecure-ignore-tlog=true', reference]).status).toBe(0);
    const other = join(work, 'other');
    mkdirSync(other);
    expect(cosign(['generate-key-pair'], other).status).toBe(0);
    const refused = cosign(['verify', '--key', join(other, 'cosign.pub'), '--insecure-ignore-tlog=true', reference]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/no matching signatures|invalid signature/i);
  });

  it("the chart in the registry carries the list's digest in its values", () => {
    const digest = (run.stdout.trim().split('\n').at(-1) ?? '').split('@')[1] ?? '';
    const values = execFileSync(
      HELM4?.bin ?? 'helm',
      ['show', 'values', doctorChart(registry), '--version', PACKAGE.version, '--ca-file', registry.caFile],
      { env: env(), encoding: 'utf8' },
    );
    expect(values).toContain(`digest: "${digest}"`);
    // The repository's own chart is untouched.
    expect(readFileSync(join(PROJECT_ROOT, 'chart/values.yaml'), 'utf8')).toContain('digest: ""');
  });

  it('the Artifact Hub annotation names the image by that digest, by the rules of Artifact Hub', () => {
    const reference = run.stdout.trim().split('\n').at(-1) ?? '';
    const chart = parse(
      execFileSync(
        HELM4?.bin ?? 'helm',
        ['show', 'chart', doctorChart(registry), '--version', PACKAGE.version, '--ca-file', registry.caFile],
        {
          env: env(),
          encoding: 'utf8',
        },
      ),
    ) as { annotations: Record<string, string> };
    expect(artifactHubAnnotationProblems(chart.annotations)).toEqual([]);
    const [image] = parse(chart.annotations['artifacthub.io/images'] ?? '') as { image: string }[];
    expect(image?.image).toBe(reference.replace('@', `:${PACKAGE.version}@`));
    expect(readFileSync(join(PROJECT_ROOT, 'chart/Chart.yaml'), 'utf8')).not.toContain('@sha256:');
  });

  it('the chart is signed by its digest, and the signature verifies with the public key', () => {
    const digest = /^Digest: (sha256:[0-9a-f]{64})$/m.exec(run.stdout)?.[1] ?? '';
    expect(digest).not.toBe('');
    const chart = `${registry.host}/charts/inferencecache-doctor@${digest}`;
    expect(cosign(['verify', '--key', 'cosign.pub', '--insecure-ignore-tlog=true', chart]).status).toBe(0);
  });

  it('artifacthub-repo.yml is the tag artifacthub.io of the chart repository, in the media types Artifact Hub reads', async () => {
    const manifest = (await registryJson(
      registry,
      'charts/inferencecache-doctor/manifests/artifacthub.io',
      'application/vnd.oci.image.manifest.v1+json',
    )) as {
      config: { mediaType: string };
      layers: { mediaType: string; digest: string }[];
    };
    expect(manifest.config.mediaType).toBe('application/vnd.cncf.artifacthub.config.v1+yaml');
    expect(manifest.layers.map((l) => l.mediaType)).toEqual(['application/vnd.cncf.artifacthub.repository-metadata.layer.v1.yaml']);
    const layer = await registryText(registry, `charts/inferencecache-doctor/blobs/${manifest.layers[0]?.digest ?? ''}`);
    expect(layer).toBe(readFileSync(join(PROJECT_ROOT, 'artifacthub-repo.yml'), 'utf8'));
    expect(artifactHubRepoProblems(layer)).toEqual([]);
  });
});
