// The release workflow cannot run here (no registry, no GitHub): actionlint, built from its Go module by
// hack/build-tools.sh, checks its syntax, expressions and action inputs, and the test checks
// that it does what a release must (multi-arch push, digest output, keyless signing, SBOM, the chart
// packaged with the digest, signed, with Artifact Hub's metadata beside it, and the executables'
// archives and krew manifest attached).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { resolveBinaries } from '../../dev/cluster/controlplane.ts';
import { PROJECT_ROOT } from '../../dev/paths.ts';

const WORKFLOW = join(PROJECT_ROOT, '.github/workflows/release.yml');
const ACTIONLINT = resolveBinaries().actionlint;
const missing = existsSync(ACTIONLINT) ? '' : `${ACTIONLINT} is missing; run npm run tools:build`;
if (missing !== '' && process.env['CI'] === 'true') throw new Error(`actionlint must run under CI: ${missing}`);

function actionlint(text: string): { code: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'icd-actionlint-'));
  try {
    const file = join(dir, 'release.yml');
    writeFileSync(file, text);
    const run = spawnSync(ACTIONLINT, ['-no-color', '-shellcheck=', '-pyflakes=', file], { encoding: 'utf8' });
    return { code: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const text = readFileSync(WORKFLOW, 'utf8');

describe.skipIf(missing !== '')(`.github/workflows/release.yml under actionlint${missing === '' ? '' : ` (skipped: ${missing})`}`, () => {
  it('passes', () => {
    expect(actionlint(text)).toEqual({ code: 0, output: '' });
  });

  it.each([
    [
      'an unknown output',
      (t: string) => t.replace('steps.build.outputs.digest }}\n      version', 'steps.nope.outputs.digest }}\n      version'),
    ],
    [
      'a broken expression',
      (t: string) =>
        t.replace('${{ github.repository_owner }}/inferencecache-doctor', '${{ github.repository_owner }/inferencecache-doctor'),
    ],
    ['an unknown job dependency', (t: string) => t.replace('needs: [image, executables]', 'needs: [images, executables]')],
  ])('refuses %s (so that the check above can fail)', (_, edit) => {
    const edited = edit(text);
    expect(edited).not.toBe(text);
    expect(actionlint(edited).code).not.toBe(0);
  });
});

describe('the release workflow', () => {
  const doc = parse(text) as {
    on: { push: { tags: string[] } };
    jobs: Record<string, { outputs?: Record<string, string>; steps: { uses?: string; run?: string; with?: Record<string, unknown> }[] }>;
  };
  const steps = Object.values(doc.jobs).flatMap((j) => j.steps);
  const runs = steps.map((s) => s.run ?? '').join('\n');

  it('runs on version tags and outputs the pushed digest', () => {
    expect(doc.on.push.tags).toEqual(['v*.*.*']);
    expect(doc.jobs['image']?.outputs?.['digest']).toBe('${{ steps.build.outputs.digest }}');
  });

  it('builds for amd64 and arm64 from the Dockerfile, with the commit and version, and pushes', () => {
    const build = steps.find((s) => s.uses?.startsWith('docker/build-push-action@') === true);
    expect(build?.with).toMatchObject({ platforms: 'linux/amd64,linux/arm64', push: true, context: '.' });
    expect(String(build?.with?.['build-args'])).toMatch(/COMMIT=\$\{\{ github\.sha \}\}\nVERSION=/);
  });

  it('signs keylessly by digest, attaches an SBOM, and packages the chart with the digest', () => {
    expect(runs).toMatch(/cosign sign --yes "\$\{IMAGE\}@\$\{DIGEST\}"/);
    expect(runs).not.toMatch(/--key\b/);
    expect(steps.some((s) => s.uses?.startsWith('anchore/sbom-action@') === true)).toBe(true);
    expect(runs).toMatch(/cosign attest --yes --type spdxjson/);
    expect(runs).toMatch(/digest: \\"\$\{DIGEST\}\\"/);
    expect(runs).toMatch(/helm package chart --version "\$VERSION"/);
  });

  it("fills the image's digest into the chart's Artifact Hub annotation too, and signs the pushed chart by digest", () => {
    expect(runs).toContain('sed -i "s|^      image: .*|      image: ${IMAGE}:${VERSION}@${DIGEST}|" chart/Chart.yaml');
    expect(runs).toMatch(/cosign sign --yes "\$\{CHARTS\}\/inferencecache-doctor@\$\{chart_digest\}"/);
    expect(doc.jobs['chart']?.steps.some((s) => s.uses?.startsWith('sigstore/cosign-installer@') === true)).toBe(true);
  });

  it('pushes artifacthub-repo.yml as the tag artifacthub.io in the media types Artifact Hub reads', () => {
    expect(runs).toContain('oras push "${CHARTS}/inferencecache-doctor:artifacthub.io"');
    expect(runs).toContain('--config /dev/null:application/vnd.cncf.artifacthub.config.v1+yaml');
    expect(runs).toContain('artifacthub-repo.yml:application/vnd.cncf.artifacthub.repository-metadata.layer.v1.yaml');
  });

  it('builds the executables, their archives and the krew manifest for this release, and attaches them', () => {
    expect(runs).toMatch(/npm run release -- --download-base "\$DOWNLOAD_BASE"/);
    const job = doc.jobs['executables'];
    expect(JSON.stringify(job?.steps)).toContain('releases/download/${{ github.ref_name }}');
    expect(job?.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@') === true)?.with).toMatchObject({ path: 'dist/release/' });
    expect(doc.jobs['chart']?.steps.find((s) => s.uses?.startsWith('actions/download-artifact@') === true)?.with).toMatchObject({
      path: 'dist/release',
    });
    expect(runs).toMatch(/gh release create "\$GITHUB_REF_NAME" dist\/\*\.tgz dist\/release\/\* /);
  });
});
