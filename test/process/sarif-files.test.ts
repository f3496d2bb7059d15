// `doctor -f ... -o sarif` as a pull-request workflow runs it on `helm template` output: each result at the file
// and line of its object, with the chart template its `# Source:` comment names, valid by Microsoft's
// SARIF Multitool with GitHub's rules; and a second run over the same files gives the same fingerprints.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { helmBinaries, runHelm, skipReason } from '../support/helm.ts';
import { ALLOWED_NOTES, multitoolComplaints, multitoolMissing } from '../support/sarif/validate.ts';

const helm4 = helmBinaries().find((h) => h.name === 'Helm 4');
const why = helm4 === undefined ? 'no Helm 4' : skipReason(helm4) || multitoolMissing();

const dir = mkdtempSync(join(tmpdir(), 'icd-sarif-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An application chart as a repository might hold one: a CacheBackend, and two CachePolicies in one namespace. */
function writeChart(): void {
  mkdirSync(join(dir, 'charts/cache/templates'), { recursive: true });
  writeFileSync(join(dir, 'charts/cache/Chart.yaml'), 'apiVersion: v2\nname: cache\nversion: 0.1.0\n');
  writeFileSync(
    join(dir, 'charts/cache/templates/backend.yaml'),
    'apiVersion: inferencecache.io/v1alpha1\nkind: CacheBackend\nmetadata:\n  name: llama\n  namespace: ml\nspec:\n  engineSelector:\n    matchLabels:\n      app: vllm-llama\n',
  );
  writeFileSync(
    join(dir, 'charts/cache/templates/policies.yaml'),
    'apiVersion: inferencecache.io/v1alpha1\nkind: CachePolicy\nmetadata:\n  name: default\n  namespace: ml\nspec: {}\n---\napiVersion: inferencecache.io/v1alpha1\nkind: CachePolicy\nmetadata:\n  name: faster\n  namespace: ml\nspec: {}\n',
  );
}

interface Result {
  ruleId: string;
  message: { text: string };
  locations: {
    physicalLocation?: { artifactLocation: { uri: string }; region: { startLine: number } };
    logicalLocations?: { fullyQualifiedName: string }[];
  }[];
  relatedLocations?: { physicalLocation: { artifactLocation: { uri: string } } }[];
  partialFingerprints: Record<string, string>;
}

/** The bundle run in the repository's folder, as a workflow step runs it. */
function doctor(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [requireBundle(), 'doctor', ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '' },
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe.skipIf(why !== '')(`SARIF from helm template output${why === '' ? '' : ` (skipped: ${why})`}`, () => {
  it('puts each result at its object, names its template, passes the Multitool, and keeps its fingerprints', () => {
    writeChart();
    const rendered = runHelm(helm4 as NonNullable<typeof helm4>, ['template', 'cache', join(dir, 'charts/cache')]);
    expect(rendered.code, rendered.stderr).toBe(0);
    mkdirSync(join(dir, 'out'), { recursive: true });
    writeFileSync(join(dir, 'out/rendered.yaml'), rendered.stdout);
    const lines = rendered.stdout.split('\n');
    const lineOf = (text: string, after = 0) => lines.findIndex((l, i) => i >= after && l === text) + 1;

    const run = doctor(['-f', 'out/rendered.yaml', '--covers', 'Pod,Event', '-o', 'sarif']);
    expect(run.code, run.stderr).toBe(1);
    const results = (JSON.parse(run.stdout) as { runs: { results: Result[] }[] }).runs[0]?.results ?? [];
    const about = (resource: string) => results.filter((r) => r.locations[0]?.logicalLocations?.[0]?.fullyQualifiedName === resource);

    // The backend's findings stand on the first line of its document, after helm's `# Source:` comment.
    const backendLine = lineOf('kind: CacheBackend') - 1;
    expect(lines[backendLine - 2]).toBe('# Source: cache/templates/backend.yaml');
    const backend = about('cachebackend/ml/llama');
    expect(backend.length).toBeGreaterThan(0);
    for (const r of backend) {
      expect(r.locations[0]?.physicalLocation).toEqual({
        artifactLocation: { uri: 'out/rendered.yaml' },
        region: { startLine: backendLine },
      });
      expect(r.relatedLocations?.[0]?.physicalLocation.artifactLocation.uri).toBe('cache/templates/backend.yaml');
      expect(r.message.text).toMatch(/\(rendered from \[cache\/templates\/backend\.yaml\]\(1\)\)$/);
    }
    // Two CachePolicies in one namespace (CP003): about the namespace, which stands at its first object.
    const crowded = about('namespace/ml').find((r) => r.ruleId === 'CP003');
    expect(crowded?.locations[0]?.physicalLocation?.artifactLocation.uri).toBe('out/rendered.yaml');
    expect(crowded?.locations[0]?.physicalLocation?.region.startLine).toBeGreaterThan(0);

    const complaints = multitoolComplaints(run.stdout);
    expect(complaints.filter((c) => !(ALLOWED_NOTES as readonly string[]).includes(c.ruleId))).toEqual([]);

    // The same files judged again: the same alerts.
    const again = doctor(['-f', 'out/rendered.yaml', '--covers', 'Pod,Event', '-o', 'sarif']);
    const prints = (text: string) =>
      ((JSON.parse(text) as { runs: { results: Result[] }[] }).runs[0]?.results ?? [])
        .map((r) => Object.values(r.partialFingerprints)[0])
        .sort();
    expect(prints(again.stdout)).toEqual(prints(run.stdout));
    expect(readFileSync(join(dir, 'out/rendered.yaml'), 'utf8')).toBe(rendered.stdout);
  }, 120_000);
});
