// The SARIF writer: valid by Microsoft's SARIF Multitool (the SARIF rules and GitHub's), a rule per code, levels
// from statuses, suppressions, fingerprints that survive a re-run, locations from the files, escaping,
// and code scanning's limits (25,000 results, 10 MB compressed).
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { codeGuides, codeTable } from '../../../src/checks/codes.ts';
import type { SourceLine } from '../../../src/files/manifest-documents.ts';
import { makeReport, type Finding, type Report } from '../../../src/report/finding.ts';
import { FINGERPRINT_KEY, MAX_SARIF_GZIP_BYTES, MAX_SARIF_RESULTS, pascalName, pathUri } from '../../../src/report/render/sarif.ts';
import { findingsOf } from '../../support/findings.ts';
import { render } from '../../support/render.ts';
import { ALLOWED_NOTES, multitoolComplaints, multitoolMissing, sarifSchemaErrors } from '../../support/sarif/validate.ts';

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  kind: string;
  message: { text: string };
  locations: {
    physicalLocation?: { artifactLocation: { uri: string }; region: { startLine: number } };
    logicalLocations?: { fullyQualifiedName: string; name?: string }[];
  }[];
  relatedLocations?: { id: number; physicalLocation: { artifactLocation: { uri: string } } }[];
  partialFingerprints: Record<string, string>;
  suppressions?: { kind: string; status: string; justification: string }[];
}

interface SarifLog {
  version: string;
  runs: {
    tool: {
      driver: {
        name: string;
        rules: { id: string; name: string; helpUri: string; help: { text: string }; defaultConfiguration: { level: string } }[];
      };
    };
    invocations: {
      executionSuccessful: boolean;
      exitCode: number;
      toolExecutionNotifications?: { level: string; message: { text: string } }[];
    }[];
    results: SarifResult[];
    properties: { summary: Record<string, unknown>; omitted: number };
  }[];
}

const sarif = (report: Report): SarifLog => JSON.parse(render(report, 'sarif')) as SarifLog;
const runOf = (report: Report) => {
  const [run] = sarif(report).runs;
  if (run === undefined) throw new Error('no run');
  return run;
};

const cb = findingsOf('CacheBackendHealth');
const sv = findingsOf('ServerReachability');
const ct = findingsOf('CacheTenantHealth');
const cp = findingsOf('CachePolicyCoverage');
const guides = codeGuides('https://docs.example.com/codes.md');

const LIVE: Report = makeReport(
  [
    sv('SV001', undefined, 'no cache-plane server Service was found in any namespace'),
    cb('CB001', 'cachebackend/prod/llama', 'Ready=False'),
    cb('CB006', 'cachebackend/prod/ok', 'healthy'),
    cp('CP001', 'namespace/prod', 'no CachePolicy'),
  ],
  {
    guides,
    suppressed: [
      {
        finding: ct('CT001', 'cachetenant/prod/a', 'over quota'),
        rule: { source: 'rules.yaml:3', match: 'CT001', reason: 'quotas are theirs' },
      },
      {
        finding: ct('CT001', 'cachetenant/prod/b', 'over quota'),
        rule: { source: 'annotation inferencecache.io/doctor-suppress on cachetenant/prod/b', match: 'CT001' },
      },
    ],
  },
);

const LINES = new Map<string, SourceLine>([
  ['cachebackend/prod/llama', { file: 'deploy/rendered.yaml', line: 42, template: 'cache/templates/backend.yaml' }],
  ['namespace/prod', { file: 'deploy/rendered.yaml', line: 3 }],
  ['cachetenant/prod/a', { file: 'deploy/tenants dir/a.yaml', line: 7 }],
]);
const FROM_FILES: Report = makeReport([...LIVE.findings], { guides, suppressed: LIVE.suppressed, locations: LINES });

describe.skipIf(multitoolMissing() !== '')(
  `SARIF Multitool validate${multitoolMissing() === '' ? '' : ` (skipped: ${multitoolMissing()})`}`,
  () => {
    it.each([
      ['a live run', LIVE],
      ['a run from files', FROM_FILES],
      ['an empty report', makeReport([], { guides })],
      ['an incomplete report', makeReport(LIVE.findings, { guides, incomplete: 'interrupted by SIGTERM' })],
    ])(
      'finds no error or warning in %s, and no note but the ones that do not apply',
      (_name, report) => {
        const complaints = multitoolComplaints(render(report, 'sarif'));
        expect(complaints.filter((c) => c.level !== 'note')).toEqual([]);
        expect(complaints.filter((c) => !(ALLOWED_NOTES as readonly string[]).includes(c.ruleId))).toEqual([]);
      },
      120_000,
    );
  },
);

describe('SARIF log', () => {
  it('is valid by the SARIF 2.1.0 schema and names the tool', () => {
    const log = sarif(LIVE);
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    expect(log.runs[0]?.tool.driver.name).toBe('inferencecache-doctor');
  });

  it('declares one rule per code, with its meaning, hint, docs link and level, each a Pascal-case name', () => {
    const { rules } = runOf(LIVE).tool.driver;
    const table = codeTable();
    expect(rules.map((r) => r.id)).toEqual(table.map((r) => r.code));
    for (const [i, row] of table.entries()) {
      const rule = rules[i];
      expect(rule?.help.text).toBe(row.hint);
      expect(rule?.helpUri).toBe(`https://docs.example.com/codes.md${row.anchor}`);
      expect(rule?.defaultConfiguration.level).toBe({ FAIL: 'error', WARN: 'warning', INFO: 'note', OK: 'none' }[row.status]);
      expect(rule?.name).toMatch(/^(?:[A-Z][a-z0-9]*)+$/);
    }
    expect(new Set(rules.map((r) => r.name)).size).toBe(rules.length);
    expect(pascalName('ServerTLS', 'TL001')).toBe('ServerTlsTl001');
  });

  it('makes a result of every finding that is not OK, most severe first, at its level, pointing at its rule', () => {
    const run = runOf(LIVE);
    expect(run.results.map((r) => [r.ruleId, r.level])).toEqual([
      ['SV001', 'error'],
      ['CB001', 'warning'],
      ['CP001', 'note'],
      ['CT001', 'warning'],
      ['CT001', 'warning'],
    ]);
    for (const r of run.results) {
      expect(r.kind).toBe('fail');
      expect(run.tool.driver.rules[r.ruleIndex]?.id).toBe(r.ruleId);
    }
    expect(run.properties.summary).toEqual({ ok: 1, info: 1, warn: 1, fail: 1, exitCode: 2, suppressed: 2 });
    expect(run.invocations[0]).toEqual({ executionSuccessful: true, exitCode: 2 });
  });

  it('carries each suppressed finding with its rule: an annotation in source, any other rule external', () => {
    const suppressions = runOf(LIVE).results.flatMap((r) => r.suppressions ?? []);
    expect(suppressions).toEqual([
      { kind: 'external', status: 'accepted', justification: 'rules.yaml:3: CT001 (quotas are theirs)' },
      { kind: 'inSource', status: 'accepted', justification: 'annotation inferencecache.io/doctor-suppress on cachetenant/prod/b: CT001' },
    ]);
  });

  it('says an incomplete run did not finish', () => {
    const run = runOf(makeReport(LIVE.findings, { guides, incomplete: 'interrupted by SIGTERM' }));
    expect(run.invocations[0]?.executionSuccessful).toBe(false);
    expect(run.invocations[0]?.toolExecutionNotifications?.[0]?.message.text).toMatch(/interrupted by SIGTERM/);
  });

  it('keeps each fingerprint across runs whose messages differ, and tells apart resources and repeats', () => {
    const at = (age: string, ...more: Finding[]) =>
      runOf(makeReport([cb('CB004', 'cachebackend/p/a', `newest KV event is ${age} old`), ...more], { guides })).results.map(
        (r) => r.partialFingerprints[FINGERPRINT_KEY],
      );
    const [first] = at('3m0s');
    expect(at('9m12s')[0]).toBe(first);
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    const [, other] = at('1m', cb('CB004', 'cachebackend/p/b', 'x'));
    expect(other).not.toBe(first);
    const twice = at('1m', cb('CB004', 'cachebackend/p/a', 'again'));
    expect(new Set(twice).size).toBe(2);
  });

  it('names the resource as a logical location, and from files the file and line of its object', () => {
    const live = runOf(LIVE).results.find((r) => r.ruleId === 'CB001');
    expect(live?.locations).toEqual([
      { logicalLocations: [{ name: 'llama', fullyQualifiedName: 'cachebackend/prod/llama', kind: 'resource' }] },
    ]);
    const results = runOf(FROM_FILES).results;
    const backend = results.find((r) => r.ruleId === 'CB001');
    expect(backend?.locations[0]?.physicalLocation).toEqual({
      artifactLocation: { uri: 'deploy/rendered.yaml' },
      region: { startLine: 42 },
    });
    expect(backend?.relatedLocations).toEqual([
      { id: 1, physicalLocation: { artifactLocation: { uri: 'cache/templates/backend.yaml' } }, message: { text: 'the chart template' } },
    ]);
    expect(backend?.message.text).toBe('Ready=False (rendered from [cache/templates/backend.yaml](1))');
    expect(results.find((r) => r.ruleId === 'CP001')?.locations[0]?.physicalLocation?.region.startLine).toBe(3);
    expect(results.find((r) => r.suppressions?.[0]?.kind === 'external')?.locations[0]?.physicalLocation?.artifactLocation.uri).toBe(
      'deploy/tenants%20dir/a.yaml',
    );
    // A finding about nothing in the files stands on the first object's line, so that code scanning shows it.
    expect(results.find((r) => r.ruleId === 'SV001')?.locations[0]?.physicalLocation).toEqual({
      artifactLocation: { uri: 'deploy/rendered.yaml' },
      region: { startLine: 42 },
    });
    expect(results.find((r) => r.ruleId === 'SV001')?.relatedLocations).toBeUndefined();
  });

  it.each([
    ['manifests/app.yaml', 'manifests/app.yaml'],
    ['./manifests/app.yaml', 'manifests/app.yaml'],
    ['/srv/repo/a b#c.yaml', 'file:///srv/repo/a%20b%23c.yaml'],
    ['dir/ünï.yaml', 'dir/%C3%BCn%C3%AF.yaml'],
  ])('writes the path %s as the URI %s', (path, uri) => {
    expect(pathUri(path)).toBe(uri);
  });

  it('keeps cluster text inert: brackets cannot make a link, controls are shown', () => {
    const hostile = cb('CB001', 'cachebackend/p/[x](1)\u202e', 'see [here](https://evil.example) \\[ok] \u001b[2J\u202e');
    const [result] = runOf(makeReport([hostile], { guides })).results;
    expect(result?.message.text).toBe('see \\[here\\](https://evil.example) \\\\\\[ok\\] \\x1b\\[2J\\u202e');
    expect(result?.locations[0]?.logicalLocations?.[0]?.fullyQualifiedName).toBe('cachebackend/p/[x](1)\\u202e');
  });

  it(`keeps at most ${MAX_SARIF_RESULTS} results, the most severe, and says how many it left out`, () => {
    const many = [
      ...Array.from({ length: MAX_SARIF_RESULTS }, (_, i) => cb('CB001', `cachebackend/p/w${i}`, 'Ready=False')),
      ...Array.from({ length: 10 }, (_, i) => sv('SV002', `svc/${i}`, 'NOT_SERVING')),
    ];
    const run = runOf(makeReport(many, { guides }));
    expect(run.results).toHaveLength(MAX_SARIF_RESULTS);
    expect(run.results.filter((r) => r.level === 'error')).toHaveLength(10);
    expect(run.properties.omitted).toBe(10);
    expect(run.invocations[0]?.toolExecutionNotifications?.[0]?.message.text).toMatch(/^10 of 25010 findings are not in this log/);
  });

  it('stays under 10 MB compressed when the messages do not compress, leaving out the least severe', () => {
    // 8 KiB of text that hardly compresses per finding, as a hostile status could make them: 25,000 would be 200 MB.
    const noise = () => randomBytes(6_144).toString('base64');
    const findings = Array.from({ length: 2_000 }, (_, i) => cb('CB001', `cachebackend/p/n${i}`, noise()));
    const text = render(makeReport([...findings, sv('SV002', 'svc/x', 'NOT_SERVING')], { guides }), 'sarif');
    expect(gzipSync(text).length).toBeLessThanOrEqual(10_000_000);
    const run = (JSON.parse(text) as SarifLog).runs[0];
    expect(run?.results[0]?.ruleId).toBe('SV002');
    expect(run?.properties.omitted).toBeGreaterThan(0);
    expect(run?.results.length).toBeLessThan(2_001);
    expect(gzipSync(text).length).toBeGreaterThan(MAX_SARIF_GZIP_BYTES * 0.8);
  }, 60_000);
});
