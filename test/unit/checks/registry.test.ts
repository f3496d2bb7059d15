/**
 * The registry and the code table it derives: every code well-formed and produced by some table case,
 * upstream's codes with upstream's statuses (docs/upstream.md, written out here on their
 * own so that the declarations are checked against the spec), every finding agreeing with the table,
 * API001 declared wherever the runner may emit it, no check reading what it did not declare, and the
 * emitter a judge is given making findings of its own check and codes only.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { API001 } from '../../../src/checks/api-read.ts';
import { defineCheck, type Check, type Declaration, type EmitFor } from '../../../src/checks/check.ts';
import { codeGuides, codeTable } from '../../../src/checks/codes.ts';
import { CHECKS, DECLARATIONS, activeDeclarations, judge, planRun } from '../../../src/checks/registry.ts';
import { runCheck } from '../../../src/checks/run.ts';
import { codesMarkdown } from '../../../src/report/code-table.ts';
import type { Finding } from '../../../src/report/finding.ts';
import { STATUSES } from '../../../src/report/status.ts';
import { given, ok, pod, probed } from './fixtures.ts';
import { judgeCases } from './judge.cases.ts';
import { TABLES } from './tables.ts';
import { applySuppressions } from '../../../src/suppress/apply.ts';
import { NOW as SUPPRESSION_NOW, SUPPRESSION_CASES } from '../suppress/cases.ts';
import { notGivenFindings } from '../../../src/checks/offline-input.ts';
import { OFFLINE_DECLARATIONS, OFFLINE_INPUT_CASES } from '../offline/offline-input.cases.ts';

const ROWS = codeTable();
const ROW = new Map(ROWS.map((r) => [r.code, r]));

/** upstream's codes and their fixed statuses. */
const UPSTREAM_STATUS: Readonly<Record<string, string>> = {
  API001: 'FAIL',
  SV001: 'FAIL',
  SV002: 'FAIL',
  SV003: 'OK',
  SN001: 'FAIL',
  SN002: 'WARN',
  SN003: 'INFO',
  SN004: 'OK',
  SN005: 'WARN',
  PL001: 'FAIL',
  PL002: 'OK',
  PL003: 'WARN',
  PB001: 'FAIL',
  PB002: 'OK',
  PB003: 'WARN',
  CB001: 'WARN',
  CB002: 'WARN',
  CB003: 'WARN',
  CB004: 'WARN',
  CB005: 'WARN',
  CB006: 'OK',
  CB007: 'WARN',
  EP001: 'WARN',
  EP002: 'OK',
  EP003: 'WARN',
  OP001: 'WARN',
  CT001: 'WARN',
  CT002: 'OK',
  CP001: 'INFO',
  CP002: 'OK',
  CP003: 'WARN',
};

/** the upstream checks, in run order, with the codes each may carry. */
const UPSTREAM_CHECKS: readonly (readonly [string, readonly string[]])[] = [
  ['ServerReachability', ['SV001', 'SV002', 'SV003']],
  ['SnapshotReachability', ['SN001', 'SN002', 'SN003', 'SN004', 'SN005']],
  ['PolicyReachability', ['PL001', 'PL002', 'PL003']],
  ['ProbeReachability', ['PB001', 'PB002', 'PB003']],
  ['CacheBackendHealth', ['API001', 'CB001', 'CB002', 'CB003', 'CB004', 'CB005', 'CB006', 'CB007']],
  ['EnginePodInjectionAudit', ['API001', 'EP001', 'EP002', 'EP003']],
  ['OrphanPodCheck', ['API001', 'OP001']],
  ['CacheTenantHealth', ['API001', 'CT001', 'CT002']],
  ['CachePolicyCoverage', ['API001', 'CP001', 'CP002', 'CP003']],
];

/** Every finding every table case produces, from its own check and from the whole run. */
const PRODUCED: readonly Finding[] = [
  ...TABLES.flatMap((t) => t.cases.flatMap((c) => [...runCheck(t.check, c.input), ...judge(c.input)])),
  ...judgeCases.flatMap((c) => judge(c.input)),
  ...SUPPRESSION_CASES.flatMap((c) => applySuppressions(c.findings, c.rules, c.now ?? SUPPRESSION_NOW).findings),
  ...OFFLINE_INPUT_CASES.flatMap((c) => notGivenFindings(OFFLINE_DECLARATIONS, new Set(c.dropped))),
];

describe('the code table', () => {
  it.each(ROWS)('$code has a status, its checks, and a one-line meaning and hint', (row) => {
    expect(row.code).toMatch(/^[A-Z]{2,3}\d{3}$/);
    expect(STATUSES).toContain(row.status);
    expect(row.checks.length).toBeGreaterThan(0);
    for (const text of [row.meaning, row.hint]) {
      expect(text.trim()).not.toBe('');
      expect(text).not.toMatch(/[\r\n]/);
    }
    expect(row.anchor).toBe(`#${row.code.toLowerCase()}`);
  });

  it('holds every upstream code with its upstream status', () => {
    expect(Object.keys(UPSTREAM_STATUS)).toHaveLength(31);
    for (const [code, status] of Object.entries(UPSTREAM_STATUS)) expect(ROW.get(code)?.status, code).toBe(status);
  });

  it('keeps the nine upstream checks first, in their order, each with the codes upstream gives it', () => {
    expect(CHECKS.slice(0, 9).map((c) => c.name)).toEqual(UPSTREAM_CHECKS.map(([name]) => name));
    for (const [i, [, codes]] of UPSTREAM_CHECKS.entries()) expect(Object.keys(CHECKS[i]?.codes ?? {}).sort()).toEqual([...codes].sort());
  });

  it('gives every code prefix but API001 to one check', () => {
    const owner = new Map<string, Set<string>>();
    for (const row of ROWS) {
      if (row.code === 'API001') continue;
      const prefix = row.code.replace(/\d+$/, '');
      owner.set(prefix, new Set([...(owner.get(prefix) ?? []), ...row.checks]));
    }
    for (const [prefix, checks] of owner) expect([...checks], prefix).toHaveLength(1);
  });

  it('names each check once', () => {
    const names = CHECKS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('refuses one code declared two ways', () => {
    const codes = (hint: string) => ({ XX001: { status: 'OK', meaning: 'm', hint, fix: 'f' } }) as const;
    const a = defineCheck({ name: 'A', codes: codes('one'), reads: {}, probes: {}, judge: () => [] });
    const b = defineCheck({ name: 'B', codes: codes('two'), reads: {}, probes: {}, judge: () => [] });
    expect(() => codeTable([a, b])).toThrow(/XX001 is declared differently by A and B/);
  });

  it("each code's guide in the report carries its meaning, hint and docs section, the meaning one line", () => {
    const guides = codeGuides('https://d.example/codes.md#old');
    for (const row of ROWS) {
      expect(guides.get(row.code)).toEqual({
        status: row.status,
        checks: row.checks,
        meaning: row.meaning,
        hint: row.hint,
        docs: `https://d.example/codes.md${row.anchor}`,
      });
      expect(row.meaning).toMatch(/^[^\n]{10,300}$/);
    }
  });

  it('docs/codes.md is the one generated from the table (run `npm run docs` after changing a declaration)', () => {
    const committed = readFileSync(new URL('../../../docs/codes.md', import.meta.url), 'utf8');
    expect(committed).toBe(codesMarkdown(ROWS));
  });
});

describe('the findings the checks make', () => {
  it.each(ROWS)('$code is produced by at least one table case', ({ code }) => {
    expect(PRODUCED.some((f) => f.code === code)).toBe(true);
  });

  it("every finding carries the status of its code and one of the code's checks", () => {
    expect(PRODUCED.length).toBeGreaterThan(0);
    for (const f of PRODUCED) {
      const row = ROW.get(f.code);
      expect(row, f.code).toBeDefined();
      expect(f.status, f.code).toBe(row?.status);
      expect(row?.checks, f.code).toContain(f.check);
    }
  });
});

describe("a judge's emitter", () => {
  const codes = {
    XX001: { status: 'WARN', meaning: 'm', hint: 'h', fix: 'f' },
    XX002: { status: 'OK', meaning: 'm', hint: 'h', fix: 'f' },
  } as const;
  const stamped = defineCheck({
    name: 'Stamped',
    codes,
    reads: {},
    probes: {},
    judge: (_input, emit) => [emit('XX001', 'thing/a', 'one'), emit('XX002', undefined, 'two'), emit('XX001', '', 'three')],
  });

  it("stamps the check's own name and each code's declared status; an empty resource is left out", () => {
    expect(runCheck(stamped, given({}))).toStrictEqual([
      { code: 'XX001', status: 'WARN', check: 'Stamped', resource: 'thing/a', message: 'one' },
      { code: 'XX002', status: 'OK', check: 'Stamped', message: 'two' },
      { code: 'XX001', status: 'WARN', check: 'Stamped', message: 'three' },
    ]);
  });

  it("type-checks only the check's declared codes, in its judge and in a helper typed from its codes", () => {
    type JudgeEmit = Parameters<typeof stamped.judge>[1];
    expectTypeOf<JudgeEmit>().parameter(0).toEqualTypeOf<'XX001' | 'XX002'>();
    expectTypeOf<EmitFor<typeof codes>>().toEqualTypeOf<JudgeEmit>();
    const _undeclared = (emit: JudgeEmit): Finding => {
      // @ts-expect-error XX999 is not among the codes Stamped declares
      return emit('XX999', undefined, 'never made: only the compiler reads this line');
    };
  });
});

describe('the API001 guard', () => {
  it('every check with an `items` read declares API001, the shared declaration', () => {
    for (const check of CHECKS as readonly Check[]) {
      const guarded = Object.values(check.reads).includes('items');
      if (guarded) expect((check.codes as Record<string, unknown>)['API001'], check.name).toBe(API001);
    }
  });

  it('reports a failed `items` read when the check first needs it, and not before', () => {
    const codes = { API001, XX001: { status: 'OK', meaning: 'm', hint: 'h', fix: 'f' } } as const;
    const lazy = defineCheck({
      name: 'Lazy',
      codes,
      reads: { cacheBackends: 'items', pods: 'items' },
      probes: {},
      judge: ({ state }, emit) => (state.cacheBackends.length === 0 ? [] : [emit('XX001', undefined, `${state.pods.length} pods`)]),
    });
    const podsFailed = { ok: false, error: 'pods are forbidden' } as const;
    expect(runCheck(lazy, given({ pods: podsFailed }))).toEqual([]);
    const backend = { namespace: 'ns1', name: 'be', uid: 'u', conditions: [] };
    expect(runCheck(lazy, given({ cacheBackends: ok([backend]), pods: podsFailed }))).toEqual([
      { code: 'API001', status: 'FAIL', check: 'Lazy', resource: 'Pod', message: 'listing Pod objects failed: pods are forbidden' },
    ]);
    expect(runCheck(lazy, given({ cacheBackends: ok([backend]), pods: ok([pod('p')]) })).map((f) => f.message)).toEqual(['1 pods']);
  });

  it('does not run a check whose required reads or probes were not gathered', () => {
    const seen: string[] = [];
    const needy = defineCheck({
      name: 'Needy',
      codes: {},
      reads: { nodes: 'items' },
      probes: { server: 'required' },
      judge: () => (seen.push('ran'), []),
    });
    runCheck(needy, given({}));
    expect(seen).toEqual([]);
  });
});

describe('declared reads', () => {
  it('a check sees its declared reads and probes, and nothing else', () => {
    const codes = { XX001: { status: 'OK', meaning: 'm', hint: 'h', fix: 'f' } } as const;
    const sneaky = defineCheck({
      name: 'Sneaky',
      codes,
      reads: { cacheBackends: 'items', nodes: 'optional' },
      probes: { dials: 'optional' },
      judge: ({ state, probes }, emit) => {
        const all = state as unknown as Record<string, unknown>;
        const seen = [
          ...Object.keys(state),
          ...Object.keys(probes),
          `pods:${String(all['pods'])}`,
          `server:${String((probes as Record<string, unknown>)['server'])}`,
        ];
        return [emit('XX001', undefined, seen.join(' '))];
      },
    });
    const input = given({ nodes: ok([]) }, { probes: { ...probed(), dials: new Map() } });
    expect(runCheck(sneaky, input).map((f) => f.message)).toEqual(['cacheBackends nodes dials pods:undefined server:undefined']);
  });
});

describe('the run plan', () => {
  it('gathers what the checks declare; under --config-only nothing for the checks that need the server probes', () => {
    const full = planRun({ configOnly: false });
    const configOnly = planRun({ configOnly: true });
    const readsOf = (declarations: readonly Declaration[]) => new Set(declarations.flatMap((d) => Object.keys(d.reads)));
    const needsProbe = (d: Declaration) => Object.values(d.probes).includes('required');
    expect([...full.reads].sort()).toEqual([...readsOf(DECLARATIONS)].sort());
    expect([...configOnly.reads].sort()).toEqual([...readsOf(DECLARATIONS.filter((d) => !needsProbe(d)))].sort());
    // Read only by checks that probe: the NetworkPolicies and the doctor's own Namespace, not under --config-only.
    for (const read of ['networkPolicies', 'ownNamespace'] as const) {
      expect(full.reads.has(read)).toBe(true);
      expect(configOnly.reads.has(read)).toBe(false);
    }
    for (const read of ['cacheBackends', 'installPods', 'noMatchEvents', 'pullSecrets', 'scopeNamespace', 'namespaces'] as const)
      expect(configOnly.reads.has(read)).toBe(true);
    expect([...full.probes].sort()).toEqual(['dials', 'routes', 'server']);
    expect([...configOnly.probes]).toEqual([]);
  });

  it('without the controller-facing listener: no route is probed, and the checks of its routes neither run nor read', () => {
    const plan = planRun({ configOnly: false, controllerListener: false });
    expect([...plan.probes].sort()).toEqual(['dials', 'server']);
    const skipped = CHECKS.filter((check) => !activeDeclarations({ configOnly: false, controllerListener: false }, CHECKS).includes(check));
    expect(skipped.map((check) => check.name)).toEqual([
      'SnapshotReachability',
      'PolicyReachability',
      'ProbeReachability',
      'NetworkPolicyReachability',
    ]);
    // The NetworkPolicies and the doctor's own Namespace are read only to explain an unanswered route.
    expect(plan.reads.has('networkPolicies')).toBe(false);
    expect(plan.reads.has('ownNamespace')).toBe(false);
    expect(plan.reads.has('cacheBackends')).toBe(true);
  });
});
