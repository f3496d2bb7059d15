/**
 * The suppression stage: its table (cases.ts), the rules' parsers (flag, file, expiry), and the rules
 * the gathered objects' annotations make.
 */
import { describe, expect, it } from 'vitest';
import { applySuppressions } from '../../../src/suppress/apply.ts';
import { annotationRules } from '../../../src/suppress/annotations.ts';
import { parseSuppressFile } from '../../../src/suppress/file.ts';
import { RuleError, expiryOf, parseSuppressFlag } from '../../../src/suppress/rule.ts';
import { backend, ok, pod, state, tenant } from '../checks/fixtures.ts';
import { NOW, SUPPRESSION_CASES } from './cases.ts';

describe('applySuppressions', () => {
  it.each(SUPPRESSION_CASES)('$name', (c) => {
    const out = applySuppressions(c.findings, c.rules, c.now ?? NOW);
    expect(out.findings.map((f) => `${f.code} ${f.resource ?? ''}`)).toEqual(c.kept);
    expect(out.suppressed.map((s) => `${s.finding.code} ${s.finding.resource ?? ''} <- ${s.rule.source}`)).toEqual(c.suppressed);
  });

  it('names the rule, its reason and expiry in its own findings', () => {
    const [rule] = parseSuppressFile('suppressions:\n  - code: CT001\n    reason: raise pending\n    expires: 2026-12-01\n', 'rules.yaml');
    const out = applySuppressions([], rule === undefined ? [] : [rule], NOW);
    expect(out.findings).toEqual([
      {
        code: 'SUP002',
        status: 'INFO',
        check: 'Suppressions',
        resource: 'rules.yaml:2',
        message: 'rule CT001 (reason: raise pending) expired on 2026-12-01: the CT001 findings it matches count again',
      },
    ]);
  });

  it('matches thousands of annotated objects without trying every rule on every finding', () => {
    const n = 20_000;
    const findings = Array.from({ length: n }, (_, i) => ({
      code: 'CB004',
      status: 'WARN' as const,
      check: 'CacheBackendHealth',
      resource: `cachebackend/ns${i % 100}/b${i}`,
      message: 'old',
    }));
    const rules = findings.map((f) => ({
      code: 'CB004',
      scope: { kind: 'resource' as const, resource: f.resource },
      ref: { source: 's', match: 'CB004' },
      location: f.resource,
    }));
    const out = applySuppressions(findings, rules, NOW);
    expect([out.findings.length, out.suppressed.length]).toEqual([0, n]);
  });
});

describe('--suppress', () => {
  it.each([
    ['CB004', 'any'],
    ['CB004=cachebackend/prod/*', 'glob'],
    ['API001=CacheBackend', 'glob'],
  ])('%s is a %s rule', (text, kind) => {
    expect(parseSuppressFlag(text)).toMatchObject({
      code: text.split('=')[0],
      scope: { kind },
      ref: { source: '--suppress', match: text },
    });
  });

  it.each([
    ['cachebackend/team-a.prod/x-1', true],
    ['cachebackend/team-a.prod/x-12', false],
    ['cachebackend/team-aXprod/x-1', false],
  ])('takes every character but * and ? as itself: %s matches %s', (resource, matches) => {
    const { scope } = parseSuppressFlag('CB004=cachebackend/team-a.prod/x-?');
    expect(scope.kind === 'glob' && scope.pattern.test(resource)).toBe(matches);
    for (const special of ['(', '[', '{', '\\', '^', '$', '|', '+', ']']) {
      const rule = parseSuppressFlag(`CB004=a${special}b*`);
      expect(rule.scope.kind === 'glob' && rule.scope.pattern.test(`a${special}bc`), special).toBe(true);
    }
  });

  it.each(['', 'cb004', 'CB4', '=x', 'CB004=', 'CB004 =x'])('%j is refused', (text) => {
    expect(() => parseSuppressFlag(text)).toThrow(RuleError);
  });
});

describe('expires', () => {
  it.each([
    ['2026-12-03', '2026-12-04T00:00:00.000Z'],
    ['2024-02-29', '2024-03-01T00:00:00.000Z'],
    ['2026-12-03T10:00:00Z', '2026-12-03T10:00:00.000Z'],
    ['2026-12-03T10:00:00+02:00', '2026-12-03T08:00:00.000Z'],
  ])('%s stops the rule at %s', (text, at) => {
    expect(new Date(expiryOf(text)).toISOString()).toBe(at);
  });

  it.each(['2026-02-30', '2025-02-29', '03/12/2026', 'tomorrow', '2026-12-03 10:00', ''])('%j is refused', (text) => {
    expect(() => expiryOf(text)).toThrow(RuleError);
  });
});

describe('--suppress-file', () => {
  const file = [
    '# why each finding is accepted',
    'suppressions:',
    '  - code: CT001',
    '    resource: cachetenant/prod/*',
    '    reason: quotas are the platform team’s',
    '    expires: 2027-01-31',
    '  - code: CB003',
    '    reason: "new backends: no KV event yet"',
    '',
  ].join('\n');

  it('reads each rule with the line it starts on', () => {
    const rules = parseSuppressFile(file, 'rules.yaml');
    expect(rules.map((r) => r.ref)).toEqual([
      { source: 'rules.yaml:3', match: 'CT001=cachetenant/prod/*', reason: 'quotas are the platform team’s', expires: '2027-01-31' },
      { source: 'rules.yaml:7', match: 'CB003', reason: 'new backends: no KV event yet' },
    ]);
    expect(rules[0]?.expiresAt).toBe(Date.parse('2027-02-01T00:00:00Z'));
    expect(rules[1]?.scope).toEqual({ kind: 'any' });
  });

  it('takes an empty file and an empty list', () => {
    expect(parseSuppressFile('', 'f')).toEqual([]);
    expect(parseSuppressFile('suppressions: []\n', 'f')).toEqual([]);
    expect(parseSuppressFile('suppressions:\n', 'f')).toEqual([]);
  });

  it.each([
    ['not YAML', 'suppressions: [\n', /^f: not valid YAML/],
    ['another top-level key', 'rules: []\n', /^f:1: want a document with one key, suppressions/],
    ['a list at the top', '- code: CB004\n', /^f:1: want a document/],
    ['not a list', 'suppressions: CB004\n', /^f:1: suppressions must be a list/],
    ['a rule that is not a map', 'suppressions:\n  - CB004\n', /^f:2: a rule is a map/],
    ['an unknown key', 'suppressions:\n  - code: CB004\n    reason: r\n    resources: x\n', /^f:2: unknown key "resources"/],
    ['no reason', 'suppressions:\n  - code: CB004\n', /^f:2: the rule for CB004 has no reason/],
    ['a blank reason', 'suppressions:\n  - code: CB004\n    reason: "  "\n', /no reason/],
    ['a bad code', 'suppressions:\n\n  - code: cb4\n    reason: r\n', /^f:3: code "cb4" is not a finding code/],
    ['an empty resource', 'suppressions:\n  - code: CB004\n    reason: r\n    resource: ""\n', /resource is empty/],
    ['a bad date', 'suppressions:\n  - code: CB004\n    reason: r\n    expires: 2027-13-01\n', /^f:2: expires "2027-13-01" is not a date/],
    ['a list as a value', 'suppressions:\n  - code: [CB004]\n    reason: r\n', /code must be a single value/],
    ['a duplicate key', 'suppressions:\n  - code: CB004\n    code: CB003\n    reason: r\n', /not valid YAML/],
  ])('refuses %s, naming the file and line', (_, text, message) => {
    expect(() => parseSuppressFile(text, 'f')).toThrow(message);
  });
});

describe('annotation rules', () => {
  const annotated = { codes: 'CB004, CB003 CB004', reason: 'migration' };

  it('makes one rule per listed code for each annotated CacheBackend, CacheTenant, Pod and Namespace', () => {
    const rules = annotationRules(
      state({
        cacheBackends: ok([backend({ namespace: 'prod', name: 'a', suppress: annotated }), backend({ namespace: 'prod', name: 'plain' })]),
        cacheTenants: ok([tenant({ namespace: 'prod', name: 't', suppress: { codes: 'CT001' } })]),
        pods: ok([
          pod('p', {
            namespace: 'prod',
            annotations: { 'inferencecache.io/doctor-suppress': 'EP001', 'inferencecache.io/doctor-suppress-reason': 'legacy' },
          }),
        ]),
        namespaces: ok([{ name: 'dev', suppress: { codes: 'CP001' } }]),
      }),
    );
    expect(rules.map((r) => [r.code, r.scope, r.ref.reason])).toEqual([
      ['CB004', { kind: 'resource', resource: 'cachebackend/prod/a' }, 'migration'],
      ['CB003', { kind: 'resource', resource: 'cachebackend/prod/a' }, 'migration'],
      ['CT001', { kind: 'resource', resource: 'cachetenant/prod/t' }, undefined],
      ['EP001', { kind: 'resource', resource: 'pod/prod/p' }, 'legacy'],
      ['CP001', { kind: 'namespace', namespace: 'dev' }, undefined],
    ]);
    expect(rules[4]?.ref.source).toBe('annotation inferencecache.io/doctor-suppress on namespace/dev');
  });

  it('reads the pods of whichever pod views the run gathered, each pod once', () => {
    const engine = pod('engine', { annotations: { 'inferencecache.io/doctor-suppress': 'EP001' } });
    const server = pod('server', { annotations: { 'inferencecache.io/doctor-suppress': 'NP001' } });
    const rules = annotationRules({
      installPods: ok([
        { pod: server, role: 'server' },
        { pod: engine, role: 'engine' },
      ]),
      selectedPods: ok([engine]),
    });
    expect(rules.map((r) => [r.code, r.location])).toEqual([
      ['NP001', 'pod/ns1/server'],
      ['EP001', 'pod/ns1/engine'],
    ]);
  });

  it('makes none from reads that failed or were not gathered', () => {
    expect(annotationRules(state({ cacheBackends: { ok: false, error: 'forbidden' } }))).toEqual([]);
    expect(annotationRules({})).toEqual([]);
  });
});
