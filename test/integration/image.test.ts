// The image, built for real: `IMAGE_BASES=local npm run image`
// builds it with buildah from the stand-in bases, and these tests look at the OCI archive as a
// registry would and run it under runc as the kubelet would: user 65532, read-only root filesystem.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IMAGE_ENV, IMAGE_NODE_FLAGS } from '../../scripts/bundle/node-flags.ts';
import { IMAGE_ARCHIVE } from '../../dev/image/buildah.ts';
import { bundleFiles, requireBundle } from '../../dev/bundle.ts';
import { createBackend, uniqueName } from '../../dev/cluster/objects.ts';
import type { JsonReport } from '../support/json-report.ts';
import { PROJECT_ROOT } from '../../dev/paths.ts';
import { createNamespace, installCrds } from '../../dev/cluster/manifests.ts';
import { doctorRuns } from '../support/doctor-runs.ts';
import { ensureImage } from '../support/image/build.ts';
import { layerEntries, openImage, runInRunc, unpackRootfs, type OciImage } from '../support/image/oci.ts';
import { parseReport } from '../support/report-schema.ts';
import { libpodCgroups, startPodmanService, type PodmanService } from '../support/image/podman.ts';
import { GenericContainer, Wait } from 'testcontainers';

const kubeconfig = inject('kubeconfig');
/** Where the image holds the bundle's folder: its entry and chunks. */
const IMAGE_BUNDLE_DIR = '/app';
const TOOLS = ['buildah', 'mmdebstrap', 'runc', 'podman'];
const missingTools = TOOLS.filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).error !== undefined);
if (missingTools.length > 0 && process.env['CI'] === 'true') {
  throw new Error(`the image tests must run under CI: install ${missingTools.join(', ')} (.ci/run does)`);
}
const skip = missingTools.length > 0 || kubeconfig === '';
const skipReason =
  missingTools.length > 0
    ? ` (skipped: apt-get install ${missingTools.join(' ')})`
    : kubeconfig === ''
      ? ' (skipped: no control plane)'
      : '';

/** Every path of a root filesystem, relative to it. */
function walk(root: string, dir = ''): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = dir === '' ? e.name : `${dir}/${e.name}`;
    return e.isDirectory() && !e.isSymbolicLink() ? [path, ...walk(root, path)] : [path];
  });
}

describe.skipIf(skip)(`the image, built with buildah and run under runc${skipReason}`, () => {
  let image: OciImage;
  let rootfs = '';
  const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
  const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };

  beforeAll(() => {
    requireBundle();
    ensureImage();
    image = openImage(IMAGE_ARCHIVE);
    rootfs = unpackRootfs(image);
  }, 1_200_000);

  afterAll(() => {
    if (image !== undefined) rmSync(image.dir, { recursive: true, force: true });
  });

  /** A new namespace on the test control plane (the CRDs installed) and a doctor identity in it. */
  const freshNamespace = async (prefix: string) => {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    await installCrds(kc);
    const ns = uniqueName(prefix);
    await createNamespace(kc, ns);
    return { kc, ns, id: await doctorRuns(kc).identity(ns, 'doctor') };
  };

  it("runs as 65532:65532, the bundle's entry with the Node flags and environment of scripts/bundle/node-flags.ts", () => {
    expect(image.config.config.User).toBe('65532:65532');
    expect(image.config.config.Env).toEqual(expect.arrayContaining(Object.entries(IMAGE_ENV).map(([name, value]) => `${name}=${value}`)));
    expect(image.config.config.Entrypoint).toEqual(['/nodejs/bin/node', ...IMAGE_NODE_FLAGS, `${IMAGE_BUNDLE_DIR}/inferencecache.mjs`]);
  });

  it('carries the OCI labels: source, revision, version, licenses', () => {
    expect(image.config.config.Labels).toMatchObject({
      'org.opencontainers.image.source': 'https://github.com/inference-cache/inferencecache-doctor',
      'org.opencontainers.image.revision': commit,
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.licenses': 'Apache-2.0',
    });
  });

  it("has a top layer holding only the bundle's files, root-owned, files 0444 and folders 0555", () => {
    const top = image.layers.at(-1);
    expect(top).toBeDefined();
    // The files the image's own entry reaches: its chunks are named by their content, which the image
    // built from the sources as they are then.
    const dir = IMAGE_BUNDLE_DIR.slice(1);
    const files = bundleFiles(join(rootfs, dir));
    expect(files).toContain('inferencecache.mjs');
    expect(files.length).toBeGreaterThan(1);
    const want = [
      { path: `${dir}/`, mode: 'dr-xr-xr-x', uid: 0, gid: 0 },
      { path: `${dir}/chunks/`, mode: 'dr-xr-xr-x', uid: 0, gid: 0 },
      ...files.map((file) => ({ path: `${dir}/${file}`, mode: '-r--r--r--', uid: 0, gid: 0 })),
    ];
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(layerEntries(top as OciImage['layers'][number]).sort(byPath)).toEqual(want.sort(byPath));
  });

  it('has no shell, no npm and no node_modules, and Node where the entrypoint runs it', () => {
    const paths = walk(rootfs);
    expect(paths).toContain('nodejs/bin/node');
    expect(paths.filter((p) => /(^|\/)(sh|bash|dash|ash)$/.test(p))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(npm|npx|apt|apt-get|dpkg)$/.test(p))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)node_modules$/.test(p))).toEqual([]);
  });

  it('prints the commit it was built from, run under runc as 65532 with a read-only root filesystem', () => {
    const run = runInRunc(image, rootfs, ['--version']);
    expect(run).toEqual({ code: 0, stdout: `inferencecache version ${version} (commit ${commit})\n`, stderr: '' });
  });

  it('runs doctor --config-only against the test control plane: the report and its exit code', async () => {
    const { kc, ns, id } = await freshNamespace('image');
    await createBackend(kc, ns, 'unready', {});
    const run = runInRunc(image, rootfs, ['doctor', '--config-only', '-o', 'json', '-n', ns, '--kubeconfig', '/kubeconfig'], {
      '/kubeconfig': id.kubeconfig,
    });
    expect(run.stderr).toBe('');
    const report = parseReport(run.stdout) as JsonReport;
    expect(run.code).toBe(1);
    expect(report.summary.exitCode).toBe(1);
    expect(report.findings.filter((f) => f.status === 'WARN').map((f) => [f.code, f.resource])).toEqual([
      ['CB001', `cachebackend/${ns}/unready`],
      ['CB003', `cachebackend/${ns}/unready`],
    ]);
  }, 120_000);

  describe("under testcontainers, through podman's Docker API", () => {
    let podman: PodmanService | undefined;
    let cgroupsBefore: string[] = [];
    const tag = () => `localhost/inferencecache-doctor:${version}`;

    beforeAll(async () => {
      cgroupsBefore = libpodCgroups();
      podman = await startPodmanService(IMAGE_ARCHIVE);
      // testcontainers reads these when it first connects; its reaper (Ryuk) is an image no registry here serves.
      process.env['DOCKER_HOST'] = podman.dockerHost;
      process.env['TESTCONTAINERS_RYUK_DISABLED'] = 'true';
    }, 120_000);

    afterAll(async () => {
      await podman?.stop();
      // Nothing left behind: the cgroups podman made are gone with it.
      expect(libpodCgroups()).toEqual(cgroupsBefore);
    });

    /** Runs the image once with `args` as 65532, host network, and returns what it printed. */
    const runOnce = async (args: readonly string[], files: { source: string; target: string }[] = []): Promise<string> => {
      let out = '';
      const container = await new GenericContainer(tag())
        .withCommand([...args])
        .withUser('65532:65532')
        .withNetworkMode('host')
        .withCopyFilesToContainer(files)
        .withLogConsumer((stream) => stream.on('data', (chunk: Buffer | string) => (out += chunk.toString())))
        .withWaitStrategy(Wait.forOneShotStartup())
        .withStartupTimeout(60_000)
        .start();
      await container.stop();
      return out;
    };

    it('prints the commit it was built from', async () => {
      expect(await runOnce(['--version'])).toBe(`inferencecache version ${version} (commit ${commit})\n`);
    }, 120_000);

    it('runs doctor --config-only against the test control plane and exits 0 on a healthy namespace', async () => {
      const { ns, id } = await freshNamespace('image-tc');
      const out = await runOnce(
        ['doctor', '--config-only', '-o', 'json', '-n', ns, '--kubeconfig', '/tmp/kubeconfig'],
        [{ source: id.kubeconfig, target: '/tmp/kubeconfig' }],
      );
      const report = parseReport(out.slice(out.indexOf('{'))) as JsonReport;
      expect(report.summary).toMatchObject({ exitCode: 0, fail: 0, warn: 0 });
    }, 120_000);
  });
});
