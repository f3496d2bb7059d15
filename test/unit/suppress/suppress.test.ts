/**
 * The suppression stage: its table (cases.ts), the rules' parsers (flag, file, expiry), and the rules
 * the gathered objects' annotations make.
 */
import { describe, expect, it } from 'vitest';
import { codeGuides } from '../../../src/checks/codes.ts';
import { judge } from '../../../src/checks/registry.ts';
import type { ClusterState } from '../../../src/cluster/state/state.ts';
import { makeReport } from '../../../src/report/finding.ts';
import { renderJson } from '../../../src/report/render/json.ts';
import { MAX_NAMED_CODE_LENGTH, applySuppressions } from '../../../src/suppress/apply.ts';
import { MAX_REASON_LENGTH, annotationRules } from '../../../src/suppress/annotations.ts';
import { parseSuppressFile } from '../../../src/suppress/file.ts';
import { MAX_GLOB_LENGTH, RuleError, expiryOf, parseSuppressFlag } from '../../../src/suppress/rule.ts';
import { backend, input, ok, pod, state, tenant } from '../checks/fixtures.ts';
import { NOW, SUPPRESSION_CASES, onObject, unknownCodes } from './cases.ts';

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

describe('codes that do not exist (SUP003)', () => {
  const on = (codes: readonly string[]) => codes.map((code) => onObject('cachebackend/prod/a', code));
  const messageOf = (codes: readonly string[]) => applySuppressions([], on(codes), NOW).findings.map((f) => [f.code, f.message]);

  it('names the first five of 20000, quoted, and counts the others', () => {
    expect(messageOf(unknownCodes(20_000))).toEqual([
      [
        'SUP003',
        'annotation inferencecache.io/doctor-suppress on cachebackend/prod/a lists 20000 codes that do not exist: "XA000", "XA001", "XA002", "XA003", "XA004" and 19995 more; they suppress nothing',
      ],
    ]);
  });

  it('names every one of five, and one alone', () => {
    expect(messageOf(unknownCodes(5))[0]?.[1]).toMatch(
      /lists 5 codes that do not exist: "XA000", "XA001", "XA002", "XA003", "XA004"; they/,
    );
    expect(messageOf(['cb004'])[0]?.[1]).toMatch(/lists 1 code that does not exist: "cb004"; it suppresses nothing$/);
  });

  it('escapes what an entry holds and cuts a long one, the … outside its quotes', () => {
    const long = 'Y'.repeat(1_000_000);
    const [[, message] = []] = messageOf(['\x1b[2J\u202eCB004', long, 'Z'.repeat(MAX_NAMED_CODE_LENGTH)]);
    expect(message).toContain('"\\x1b[2J\\u202eCB004"');
    expect(message).toContain(`"${'Y'.repeat(MAX_NAMED_CODE_LENGTH)}"…, "${'Z'.repeat(MAX_NAMED_CODE_LENGTH)}";`);
    expect(message?.length).toBeLessThan(300);
  });

  it('leaves a rule of a code that exists as it was: one SUP001 each', () => {
    expect(messageOf(['CB004', 'CB003']).map(([code]) => code)).toEqual(['SUP001', 'SUP001']);
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

describe('the length of a resource glob', () => {
  const longest = `cachebackend/${'*'.repeat(MAX_GLOB_LENGTH - 'cachebackend/'.length)}`;
  const longer = `${longest}x`;
  it('a glob as long as a resource can be is taken, from the flag and from the file', () => {
    expect(parseSuppressFlag(`CB001=${longest}`).scope).toMatchObject({ kind: 'glob' });
    expect(parseSuppressFile(`suppressions:\n- {code: CB001, resource: "${longest}", reason: r}\n`, 'rules.yaml')).toHaveLength(1);
  });
  it('a longer one is refused: no resource is that long, and it would make every match cost more', () => {
    expect(() => parseSuppressFlag(`CB001=${longer}`)).toThrow(
      new RuleError(
        `invalid --suppress ${JSON.stringify(`CB001=${longer}`.slice(0, 64))}…: the resource glob is ${MAX_GLOB_LENGTH + 1} characters long, more than any resource (at most ${MAX_GLOB_LENGTH})`,
      ),
    );
    expect(() => parseSuppressFile(`suppressions:\n- {code: CB001, resource: "${longer}", reason: r}\n`, 'rules.yaml')).toThrow(
      /rules\.yaml.*: the resource glob is 1025 characters long, more than any resource \(at most 1024\)/,
    );
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

  it(`keeps a reason of up to ${MAX_REASON_LENGTH} characters whole and cuts a longer one with …`, () => {
    const reasonOf = (reason: string) =>
      annotationRules(state({ cacheBackends: ok([backend({ suppress: { codes: 'CB004', reason } })]) }))[0]?.ref.reason;
    const fits = '€'.repeat(MAX_REASON_LENGTH);
    expect(reasonOf(fits)).toBe(fits);
    expect(reasonOf(`${fits}!`)).toBe(`${'€'.repeat(MAX_REASON_LENGTH - 1)}…`);
    expect(reasonOf('r'.repeat(1 << 20))).toBe(`${'r'.repeat(MAX_REASON_LENGTH - 1)}…`);
    expect([...(reasonOf(`${'😀'.repeat(MAX_REASON_LENGTH)}!`) ?? '')]).toHaveLength(MAX_REASON_LENGTH);
  });

  it('makes none from reads that failed or were not gathered', () => {
    expect(annotationRules(state({ cacheBackends: { ok: false, error: 'forbidden' } }))).toEqual([]);
    expect(annotationRules({})).toEqual([]);
  });
});

describe('one annotated object cannot flood the report', () => {
  /** The JSON report of a run over `s`: every check, then the annotations' rules applied. */
  function report(s: ClusterState) {
    const out = applySuppressions(judge(input({ state: s })), annotationRules(s), NOW);
    const json = renderJson(makeReport(out.findings, { suppressed: out.suppressed, guides: codeGuides() }));
    return { ...out, json };
  }
  const annotated = (codes: readonly string[], reason: string) =>
    state({ cacheBackends: ok([backend({ namespace: 'prod', name: 'a', suppress: { codes: codes.join(','), reason } })]) });

  it('a CacheBackend listing 20000 codes that do not exist, beside a reason of 1 MiB: one finding about them, and a small report', () => {
    const { findings, suppressed, json } = report(annotated(['CB001', 'CB003', 'EP001', ...unknownCodes(20_000)], 'r'.repeat(1 << 20)));
    expect(findings.filter((f) => f.code === 'SUP003').map((f) => f.resource)).toEqual(['cachebackend/prod/a']);
    expect(findings.map((f) => f.code)).toEqual(['CP001', 'SUP001', 'SUP003']);
    expect(suppressed.map((f) => f.finding.code)).toEqual(['CB001', 'CB003']);
    expect(json.length).toBeLessThan(20_000);
  });

  it('the same CacheBackend listing codes that exist only: a rule each, with its short reason whole', () => {
    const { findings, suppressed } = report(annotated(['CB001', 'CB003', 'EP001'], 'migrating'));
    expect(findings.map((f) => [f.code, f.message]).slice(1)).toEqual([
      ['SUP001', 'rule EP001 (reason: migrating) matched no finding of this run'],
    ]);
    expect(suppressed.map((f) => [f.finding.code, f.rule.reason])).toEqual([
      ['CB001', 'migrating'],
      ['CB003', 'migrating'],
    ]);
  });
});
