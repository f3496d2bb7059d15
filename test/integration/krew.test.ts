// The release's krew plugin, as krew itself reads it: `npm run release` writes the archives, SHA256SUMS
// and the manifest for a loopback server standing in for the GitHub release; krew v0.4.3 (built from its
// module) validates the manifest and installs both platforms from that server, installs the amd64
// archive into a scratch KREW_ROOT, and `kubectl inferencecache` then runs against the test control
// plane. The README's install block runs as written, with the release's address pointed at the server.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readPinnedVersions } from '../../dev/cluster/controlplane.ts';
import type { Identity } from '../../dev/cluster/identity.ts';
import { nodeBinaries } from '../../dev/cluster/node/node.ts';
import { ensureExecutables } from '../../dev/executable.ts';
import { EXECUTABLE_PLATFORMS } from '../../dev/node-runtime.ts';
import { PACKAGE } from '../../dev/package.ts';
import { cacheRoot, PROJECT_ROOT } from '../../dev/paths.ts';
import { archiveName } from '../../dev/release-files.ts';
import { collectProcess } from '../../dev/process.ts';
import { PROJECT_URL } from '../../src/version.ts';
import { configOnlyNamespace, expectConfigOnlyReport } from '../support/config-only.ts';
import { startHttpServer, type TestHttpServer } from '../support/servers/http-server.ts';

const kubeconfig = inject('kubeconfig');
const versions = readPinnedVersions();
const KREW_DIR = join(cacheRoot(), 'bin', `krew-${versions['KREW_VERSION'] ?? 'unknown'}`);
const KUBECTL = nodeBinaries().kubectl;
const programs = [join(KREW_DIR, 'kubectl-krew'), join(KREW_DIR, 'validate-krew-manifest'), KUBECTL];
const missing = programs.filter((p) => !existsSync(p));
if (missing.length > 0 && process.env['CI'] === 'true')
  throw new Error(`krew must run under CI: missing ${missing.join(', ')} (hack/build-tools.sh builds them)`);
const skipReason =
  kubeconfig === ''
    ? ` (skipped: ${inject('controlPlaneSkipReason')})`
    : missing.length > 0
      ? ` (skipped: missing ${missing.join(', ')}; run hack/build-tools.sh krew node)`
      : '';

/** Where the GitHub release of this version serves its files; the README and the manifest name it. */
const RELEASE_BASE = `${PROJECT_URL}/releases/download/v${PACKAGE.version}`;

/** The README's install block, without its fence. */
function installBlock(): string {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const block = /<!-- install:begin -->\n```sh\n([\s\S]*?)```\n<!-- install:end -->/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no install block between its markers');
  return block;
}

describe.skipIf(skipReason !== '')(`krew and the release's archives${skipReason}`, () => {
  const kc = new KubeConfig();
  const work = mkdtempSync(join(tmpdir(), 'icd-krew-'));
  const out = join(work, 'release');
  /** kubectl and its krew plugin, as a krew user has them on PATH. */
  const bin = join(work, 'bin');
  let server: TestHttpServer;
  let base = '';
  let ns = '';
  let id: Identity;

  /** A command's environment: kubectl with krew, a krew root of its own, nothing from this machine's user. */
  const env = (krewRoot: string): NodeJS.ProcessEnv => ({
    PATH: `${join(krewRoot, 'bin')}:${bin}:/usr/bin:/bin`,
    HOME: join(work, 'home'),
    KREW_ROOT: krewRoot,
    KUBECONFIG: id.kubeconfig,
  });
  // Asynchronous: the stand-in release is served from this process.
  const run = (command: string, args: readonly string[], krewRoot: string, more: NodeJS.ProcessEnv = {}, cwd = work) =>
    collectProcess(command, args, { cwd, env: { ...env(krewRoot), ...more }, timeoutMs: 240_000 });

  /** krew's validator on `manifest` (it installs every platform into krew roots of its own). */
  const validate = (manifest: string, ...flags: string[]) =>
    run(join(KREW_DIR, 'validate-krew-manifest'), ['-manifest', manifest, ...flags], join(work, 'unused-root'));

  beforeAll(async () => {
    ensureExecutables(EXECUTABLE_PLATFORMS);
    mkdirSync(bin);
    mkdirSync(join(work, 'home'));
    symlinkSync(KUBECTL, join(bin, 'kubectl'));
    symlinkSync(join(KREW_DIR, 'kubectl-krew'), join(bin, 'kubectl-krew'));
    server = await startHttpServer();
    base = server.url(`/releases/download/v${PACKAGE.version}`);
    const release = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts/release.ts'), '--download-base', base, '--out', out], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    if (release.status !== 0) throw new Error(`npm run release failed: ${release.stderr}`);
    for (const name of readdirSync(out))
      server.setRoute(`/releases/download/v${PACKAGE.version}/${name}`, {
        kind: 'answer',
        status: 200,
        body: readFileSync(join(out, name)),
      });
    kc.loadFromFile(kubeconfig);
    ({ ns, id } = await configOnlyNamespace(kc, 'krew'));
  }, 300_000);

  afterAll(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('the release holds both archives, their sums and the manifest', () => {
    const names = EXECUTABLE_PLATFORMS.map((p) => archiveName(PACKAGE.version, p));
    expect(readdirSync(out).sort()).toEqual(['SHA256SUMS', 'inferencecache.yaml', ...names].sort());
    const sums = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' });
    expect(sums.status, sums.stderr).toBe(0);
    const listing = spawnSync('tar', ['-tvzf', join(out, names[0] ?? '')], { encoding: 'utf8' }).stdout;
    expect(
      listing
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(/\s+/).slice(-1)[0]),
    ).toEqual(['LICENSE', 'LICENSE-node', 'kubectl-inferencecache']);
    expect(listing).toMatch(/^-rwxr-xr-x 0\/0 .* kubectl-inferencecache$/m);
  });

  it('validate-krew-manifest accepts the manifest, and installs both platforms from the archives, license included', async () => {
    const validated = await validate(join(out, 'inferencecache.yaml'));
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stderr).toContain('all 2 spec.platforms installed fine');
  });

  it('the manifest as released (pointing at the GitHub release) passes validation too', async () => {
    const released = join(work, 'released', 'inferencecache.yaml');
    mkdirSync(join(work, 'released'));
    const text = readFileSync(join(out, 'inferencecache.yaml'), 'utf8');
    expect(text.split(base).length).toBe(3);
    writeFileSync(released, text.replaceAll(base, RELEASE_BASE));
    const validated = await validate(released, '-skip-install');
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stderr).toContain('structural validation OK');
  });

  it('krew refuses an archive whose sha256 is not the manifest one (so that the checks above can fail)', async () => {
    const wrong = join(work, 'wrong', 'inferencecache.yaml');
    mkdirSync(join(work, 'wrong'));
    writeFileSync(
      wrong,
      readFileSync(join(out, 'inferencecache.yaml'), 'utf8').replace(/sha256: [0-9a-f]{64}/, `sha256: ${'0'.repeat(64)}`),
    );
    const root = join(work, 'root-wrong');
    const refused = await run(
      KUBECTL,
      ['krew', 'install', `--manifest=${wrong}`, `--archive=${join(out, archiveName(PACKAGE.version, 'linux-amd64'))}`],
      root,
    );
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toMatch(/sha256/i);
  });

  it('kubectl krew install --manifest --archive, then kubectl inferencecache doctor --config-only against the control plane', async () => {
    const root = join(work, 'root-archive');
    const installed = await run(
      KUBECTL,
      [
        'krew',
        'install',
        `--manifest=${join(out, 'inferencecache.yaml')}`,
        `--archive=${join(out, archiveName(PACKAGE.version, 'linux-amd64'))}`,
      ],
      root,
    );
    expect(installed.code, installed.stderr).toBe(0);
    const version = await run(KUBECTL, ['inferencecache', '--version'], root);
    expect(version.stdout).toMatch(new RegExp(`^inferencecache version ${PACKAGE.version.replaceAll('.', '\\.')} `));
    expectConfigOnlyReport(await run(KUBECTL, ['inferencecache', 'doctor', '--config-only', '-n', ns, '-o', 'json'], root));
  });

  it("the README's install block, as written, against the stand-in release", async () => {
    const block = installBlock();
    expect(block).toContain(RELEASE_BASE);
    const root = join(work, 'root-readme');
    const cwd = join(work, 'readme');
    mkdirSync(cwd);
    // Each command runs in one shell, in order; its exit code is recorded beside it.
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    const script = lines.map((line, i) => `${line.replaceAll(RELEASE_BASE, base)}\necho "${i} $?" >> "$STATUS"`).join('\n');
    const result = await run('bash', ['-c', script], root, { STATUS: join(work, 'readme-status') }, cwd);
    const codes = readFileSync(join(work, 'readme-status'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Number(l.split(' ')[1]));
    expect(codes).toHaveLength(lines.length);
    for (const [i, line] of lines.entries()) {
      // The doctor's own exit code says what it found (0, 1 or 2); anything else is a failure to run.
      const allowed = /inferencecache doctor/.test(line) ? [0, 1, 2] : [0];
      expect(allowed, `${line} (stderr: ${result.stderr.slice(0, 600)})`).toContain(codes[i]);
    }
    expect(result.stdout.split('\n').filter((l) => l === 'inferencecache doctor')).toHaveLength(2);
    // The summary's notes may also count suppressed findings (other suites leave annotated objects behind).
    expect(
      result.stdout.match(/^Summary: \d+ OK, \d+ INFO, \d+ WARN, \d+ FAIL {2}\(exit \d(?:, [^)]+)?\)$/gm),
      result.stdout
        .split('\n')
        .filter((l) => l.startsWith('Summary') || l.startsWith('inferencecache doctor'))
        .join('\n'),
    ).toHaveLength(2);
  });
});
