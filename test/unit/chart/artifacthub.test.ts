// The chart as its ecosystem reads it: kubeVersion (Helm refuses an older cluster and admits managed
// clusters' version strings), and the Artifact Hub annotations and artifacthub-repo.yml by the rules of
// Artifact Hub's linter (support/artifacthub.ts; its module is not served here, so `ah` cannot run in CI).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readPinnedVersions } from '../../../dev/cluster/controlplane.ts';
import { PACKAGE } from '../../../dev/package.ts';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { PROJECT_URL } from '../../../src/version.ts';
import { artifactHubAnnotationProblems, artifactHubRepoProblems, isImageReference } from '../../support/artifacthub.ts';
import { CHART_DIR, helmBinaries, runHelm, skipReason } from '../../support/helm.ts';

interface ChartYaml {
  readonly kubeVersion: string;
  readonly appVersion: string;
  readonly annotations: Record<string, string>;
}

const chart = parse(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as ChartYaml;
const values = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as { image: { repository: string } };
const versions = readPinnedVersions();
const minor = (version: string) => /^v?(\d+\.\d+)\./.exec(version)?.[1] ?? `no minor in ${version}`;

describe('kubeVersion', () => {
  it("admits from the oldest minor the control-plane suites run on (hack/versions.env), managed clusters' suffixes included", () => {
    expect(chart.kubeVersion).toBe(`>=${minor(versions['KUBERNETES_OLDEST_VERSION'] ?? '')}.0-0`);
  });

  const oldest = (versions['KUBERNETES_OLDEST_VERSION'] ?? '').replace(/^v/, '');
  const [major, min] = oldest.split('.').map(Number) as [number, number];
  const cases: [string, boolean][] = [
    [`v${major}.${min - 1}.9`, false],
    [`v${oldest}`, true],
    [`v${major}.${min}.0-eks-f69f56f`, true],
    [`v${major}.${min}.1-gke.1234000`, true],
    [versions['KUBERNETES_VERSION'] ?? '', true],
  ];
  for (const helm of helmBinaries()) {
    describe.skipIf(skipReason(helm) !== '')(`${helm.name}${skipReason(helm) === '' ? '' : ` (skipped: ${skipReason(helm)})`}`, () => {
      it.each(cases)('helm template --kube-version %s: admitted %s', (kubeVersion, admitted) => {
        const run = runHelm(helm, ['template', 'doctor', CHART_DIR, '--kube-version', kubeVersion]);
        expect(run.code === 0, run.stderr).toBe(admitted);
        if (!admitted) expect(run.stderr).toMatch(/incompatible with Kubernetes/);
      });

    });
  }
});

describe('the Artifact Hub annotations', () => {
  const annotation = (name: string) => chart.annotations[`artifacthub.io/${name}`] ?? '';

  it("pass Artifact Hub's rules", () => {
    expect(artifactHubAnnotationProblems(chart.annotations)).toEqual([]);
  });

  it("name the values' image at the chart's appVersion, for both platforms the release builds", () => {
    expect(parse(annotation('images'))).toEqual([
      { name: 'inferencecache-doctor', image: `${values.image.repository}:${chart.appVersion}`, platforms: ['linux/amd64', 'linux/arm64'] },
    ]);
    const workflow = readFileSync(join(PROJECT_ROOT, '.github/workflows/release.yml'), 'utf8');
    expect(workflow).toContain('platforms: linux/amd64,linux/arm64');
  });

  it("the license is package.json's, and the repository has its text", () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(annotation('license')).toBe(pkg.license);
    expect(readFileSync(join(PROJECT_ROOT, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0/);
  });

  it('every link under the project points at a file (and anchor) that exists', () => {
    const links = [
      ...(parse(annotation('links')) as { url: string }[]).map((l) => l.url),
      (parse(annotation('signKey')) as { url: string }).url,
    ];
    for (const url of links) {
      expect(url.startsWith(PROJECT_URL), url).toBe(true);
      const [path = '', anchor] = url.slice(PROJECT_URL.length).replace(/^\/blob\/main\//, '').split('#');
      const file = join(PROJECT_ROOT, path === '' ? 'README.md' : path);
      expect(existsSync(file), url).toBe(true);
      if (anchor !== undefined && anchor !== 'readme') expect(readFileSync(file, 'utf8'), url).toMatch(new RegExp(`id="${anchor}"|^#+ .*\\{#${anchor}\\}`, 'm'));
    }
  });

  it('has changes for this version', () => {
    expect((parse(annotation('changes')) as unknown[]).length).toBeGreaterThan(0);
    expect(PACKAGE.version).toBe(chart.appVersion);
  });

  // Each rule refuses what Artifact Hub refuses: the check above can fail.
  it.each<[string, Record<string, string>, RegExp]>([
    ['a misspelt annotation', { 'artifacthub.io/link': '[]' }, /reads no such annotation/],
    ['an unknown category', { 'artifacthub.io/category': 'observability' }, /not a category/],
    ['a change of an unknown kind', { 'artifacthub.io/changes': '- kind: improved\n  description: faster' }, /kind "improved"/],
    ['a change without a description', { 'artifacthub.io/changes': '- kind: added' }, /no description/],
    ['a change link without a url', { 'artifacthub.io/changes': '- description: x\n  links:\n    - name: PR' }, /name and a url/],
    ['changes that are not YAML', { 'artifacthub.io/changes': '- kind: [added' }, /not YAML/],
    ['an image reference with capitals', { 'artifacthub.io/images': '- name: d\n  image: ghcr.io/Org/d:1' }, /not an image reference/],
    ['an image digest that is not sha256 hex', { 'artifacthub.io/images': '- name: d\n  image: ghcr.io/o/d@sha256:xyz' }, /not an image reference/],
    ['platforms as a string', { 'artifacthub.io/images': '- name: d\n  image: ghcr.io/o/d:1\n  platforms: linux/amd64' }, /platforms/],
    ['a link without a name', { 'artifacthub.io/links': '- url: https://example.org' }, /name and an http/],
    ['a sign key without a url', { 'artifacthub.io/signKey': 'fingerprint: C874011F0AB405110D02105534365D9472D7468F' }, /no url/],
    ['a prerelease that is not a boolean', { 'artifacthub.io/prerelease': 'yes' }, /not a boolean/],
    ['an unknown operator capability', { 'artifacthub.io/operatorCapabilities': 'magic' }, /capability level/],
  ])('refuses %s', (_, annotations, problem) => {
    expect(artifactHubAnnotationProblems(annotations).join('\n')).toMatch(problem);
  });

  it.each([
    ['ghcr.io/inference-cache/inferencecache-doctor:0.1.0', true],
    [`ghcr.io/inference-cache/inferencecache-doctor:0.1.0@sha256:${'a'.repeat(64)}`, true],
    ['localhost:5000/charts/d', true],
    ['d', true],
    ['ghcr.io/o/d:', false],
    ['ghcr.io/o//d:1', false],
    ['-ghcr.io/o/d', false],
  ])('reads %s as an image reference: %s', (reference, ok) => {
    expect(isImageReference(reference)).toBe(ok);
  });
});

describe('artifacthub-repo.yml', () => {
  it("passes Artifact Hub's rules", () => {
    expect(artifactHubRepoProblems(readFileSync(join(PROJECT_ROOT, 'artifacthub-repo.yml'), 'utf8'))).toEqual([]);
  });

  it.each([
    ['a repository ID that is no UUID', 'repositoryID: 1234', /not a UUID/],
    ['an owner without an email', 'owners:\n  - name: someone', /name and an email/],
    ['an ignore entry without a name', 'ignore:\n  - version: beta', /name of a package/],
    ['an ignore version that is no regular expression', 'ignore:\n  - name: d\n    version: "(beta"', /not a regular expression/],
    ['a misspelt key', 'repositoryId: 9f6a5c2e-2a43-4a8e-9d1f-7e2b2f0c6b1a', /reads no such key/],
    ['a list', '- repositoryID: x', /not a YAML mapping/],
  ])('refuses %s', (_, content, problem) => {
    expect(artifactHubRepoProblems(content).join('\n')).toMatch(problem);
  });
});
