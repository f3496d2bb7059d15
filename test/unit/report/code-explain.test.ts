/**
 * `inferencecache explain`: every code carries a fix of its own, what its checks read is derived from
 * their declarations, one code of each check is explained from its row of the code table (text and
 * JSON), a code is found in any case and a wrong one is answered with the closest, and the docs link
 * follows `--docs-base`. The text of one code is pinned in test/golden/explain-cb004.txt; run with
 * UPDATE_GOLDEN=1 to rewrite it after a deliberate change, then review the diff.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expectGolden } from '../../support/golden.ts';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import type { Declaration } from '../../../src/checks/check.ts';
import { checkReads } from '../../../src/checks/check-reads.ts';
import { DEFAULT_DOCS_BASE, codeTable } from '../../../src/checks/codes.ts';
import { DECLARATIONS } from '../../../src/checks/registry.ts';
import { UsageError, type ExplainOptions } from '../../../src/cli/options.ts';
import { explainCode } from '../../../src/commands/explain.ts';
import { explainJson, explainText, type CodeExplanation } from '../../../src/report/code-explain.ts';
import { lookupCode } from '../../../src/report/code-lookup.ts';
import { checkReadsText, fixSteps, type CodeRow } from '../../../src/report/code-table.ts';

const ROWS = codeTable();
const GOLDEN = path.join(PROJECT_ROOT, 'test/golden/explain-cb004.txt');
const DOCS = 'https://docs.example.com/inferencecache/codes.html';

/** What explain prints for `code`. */
function explain(code: string, more: Partial<ExplainOptions> = {}): Promise<string> {
  return explainCode({ code, output: 'human', ...more });
}

/** The JSON explain prints for `code`, parsed. */
async function explainParsed(code: string, more: Partial<ExplainOptions> = {}): Promise<Record<string, unknown>> {
  return JSON.parse(await explainCode({ code, output: 'json', ...more })) as Record<string, unknown>;
}

/** The text with its wrapping undone: every run of blanks and line breaks one blank. */
function unwrapped(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** The rejection message of explaining `code`, or undefined when it was explained. */
async function refusal(code: string): Promise<string | undefined> {
  try {
    await explain(code);
    return undefined;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    return err.message;
  }
}

describe('the fix of every code', () => {
  it.each(ROWS)('$code has a fix of its own: plain text, not its hint, two to five steps or sentences', ({ code, status, hint, fix }) => {
    expect(fix.trim(), code).not.toBe('');
    expect(fix, code).toBe(fix.trim());
    expect(fix, code).not.toBe(hint);
    expect(fix, code).not.toContain(hint);
    expect(fix, code).not.toMatch(/[\r\n\t`]|\*\*|\]\(/);
    const steps = fixSteps(fix);
    if (steps.length > 1) {
      expect(
        steps.map((s) => /^(\d)\. /.exec(s)?.[1]),
        code,
      ).toEqual(steps.map((_, i) => String(i + 1)));
      expect(steps.length, code).toBeLessThanOrEqual(5);
    } else {
      const sentences = fix.split(/(?<=[.?!]) (?=[A-Za-z])/);
      expect(sentences.length, code).toBeGreaterThanOrEqual(2);
      expect(sentences.length, code).toBeLessThanOrEqual(5);
    }
    if (status === 'OK') expect(fix, code).toMatch(/^Nothing needs doing: /);
  });

  it('no two codes share a fix', () => {
    const fixes = ROWS.map((r) => r.fix);
    const shared = fixes.filter((fix, i) => fixes.indexOf(fix) !== i);
    expect(shared).toEqual([]);
  });

  it('splits numbered steps, and only them', () => {
    expect(fixSteps('1. Do a. 2. Do b (1.5 of it). 3. Done.')).toEqual(['1. Do a.', '2. Do b (1.5 of it).', '3. Done.']);
    expect(fixSteps('Nothing needs doing. See step 2. of nothing.')).toEqual(['Nothing needs doing. See step 2. of nothing.']);
  });
});

describe('what a check reads, in words', () => {
  const cases: { name: string; declaration: Pick<Declaration, 'name' | 'reads' | 'probes'>; kubernetes: RegExp[]; probes: RegExp[] }[] = [
    {
      name: 'a list of a namespaced Kind: verb, plural Kind, scope',
      declaration: { name: 'A', reads: { cacheTenants: 'items', cachePolicies: 'items' }, probes: {} },
      kubernetes: [/^lists CacheTenants \(all namespaces, or -n\)$/, /^lists CachePolicies \(all namespaces, or -n\)$/],
      probes: [],
    },
    {
      name: 'a cluster-scoped list, with what it keeps',
      declaration: { name: 'A', reads: { nodes: 'items' }, probes: {} },
      kubernetes: [/^lists Nodes \(cluster-wide\): their readiness/],
      probes: [],
    },
    {
      name: 'a view of a list says which objects it keeps, and a partial one what it costs',
      declaration: { name: 'A', reads: { selectedPods: 'items', injectionEvents: 'partial' }, probes: {} },
      kubernetes: [
        /^lists Pods \(.*\): the engine pods a CacheBackend/,
        /^lists Events \(.*\): the InjectedByCacheBackend Events.*\(optional: without it .* undecided\)$/,
      ],
      probes: [],
    },
    {
      name: 'objects read by name, and a single object',
      declaration: { name: 'A', reads: { pullSecrets: 'read', scopeNamespace: 'read' }, probes: {} },
      kubernetes: [/^gets Secrets one by one, by name: .*type and shape/, /^gets the Namespace that -n names$/],
      probes: [],
    },
    {
      name: 'a probe of the server adds how the server is found, and what --config-only does',
      declaration: { name: 'A', reads: {}, probes: { server: 'required' } },
      kubernetes: [/^gets the Service inference-cache-server in inference-cache-system .* whatever -n says/],
      probes: [/^calls the gRPC health service .*\(9090, .*except under --config-only, when the check does not run$/],
    },
    {
      name: 'an optional probe, without discovery',
      declaration: { name: 'A', reads: {}, probes: { dials: 'optional' } },
      kubernetes: [],
      probes: [
        /^dials each CacheBackend's published remote endpoint over TCP, except under --config-only, when the check judges without it$/,
      ],
    },
  ];
  it.each(cases)('$name', ({ declaration, kubernetes, probes }) => {
    const reads = checkReads(declaration);
    expect(reads.check).toBe('A');
    expect(reads.kubernetes).toHaveLength(kubernetes.length);
    kubernetes.forEach((pattern, i) => expect(reads.kubernetes[i]).toMatch(pattern));
    expect(reads.probes).toHaveLength(probes.length);
    probes.forEach((pattern, i) => expect(reads.probes[i]).toMatch(pattern));
  });

  it('a declaration that reads and probes nothing says so', () => {
    expect(checkReadsText(checkReads({ name: 'A', reads: {}, probes: {} }))).toBe('no Kubernetes read and no probe of its own');
  });

  it('every row gives each of its checks its reads, in the order of its checks, as the declarations say', () => {
    const byName = new Map(DECLARATIONS.map((d) => [d.name, d]));
    for (const row of ROWS) {
      expect(
        row.reads.map((r) => r.check),
        row.code,
      ).toEqual(row.checks);
      for (const reads of row.reads)
        expect(reads, row.code).toEqual(checkReads(byName.get(reads.check) ?? { name: '?', reads: {}, probes: {} }));
    }
    expect(ROWS.find((r) => r.code === 'API001')?.reads.length).toBeGreaterThan(1);
  });
});

/** One code of each declaration (its first that is its own, not the shared API001). */
const ONE_OF_EACH = DECLARATIONS.map((d) => ({ check: d.name, code: Object.keys(d.codes).find((c) => c !== 'API001') ?? '' }));

describe('explain CODE', () => {
  it.each(ONE_OF_EACH)('$check: $code is explained from its row, in text and in JSON', async ({ check, code }) => {
    const row = ROWS.find((r) => r.code === code);
    if (row === undefined) throw new Error(`${code} is not in the code table`);
    const text = await explain(code);
    const flat = unwrapped(text);
    expect(text.split('\n')[0]).toBe(`${code}  ${row.status}`);
    expect(flat).toContain(`Check: ${check} `);
    expect(flat).toContain(`Meaning: ${row.meaning} `);
    expect(flat).toContain(`Reads: ${checkReadsText(row.reads[0] ?? { check, kubernetes: [], probes: [] })} `);
    expect(flat).toContain(`Hint: ${row.hint} `);
    expect(flat).toContain(`Fix: ${row.fix} `);
    expect(flat).toContain(`Docs: ${DEFAULT_DOCS_BASE}#${code.toLowerCase()}`);
    for (const line of text.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    const json = await explainParsed(code);
    expect(json).toEqual({
      code,
      status: row.status,
      checks: [check],
      meaning: row.meaning,
      reads: [{ check, kubernetes: [...(row.reads[0]?.kubernetes ?? [])], probes: [...(row.reads[0]?.probes ?? [])] }],
      hint: row.hint,
      fix: row.fix,
      docs: `${DEFAULT_DOCS_BASE}#${code.toLowerCase()}`,
    });
  });

  it('puts each step of a fix on a line of its own, and lists the reads of each check of a shared code', async () => {
    const lines = (await explain('CB002')).split('\n');
    expect(lines.filter((line) => /^(Fix: {6}| {10})\d\. /.test(line))).toHaveLength(4);
    const api = unwrapped(await explain('API001'));
    for (const check of ROWS.find((r) => r.code === 'API001')?.checks ?? []) expect(api).toContain(` ${check}: lists `);
  });

  it.each(['cb004', 'Cb004', ' CB004 ', 'cB004'])('finds %j in any case, blanks around it ignored', async (typed) => {
    expect(await explain(typed)).toBe(await explain('CB004'));
  });

  it('writes JSON with its keys in a fixed order, one entry of reads per check', async () => {
    const json = await explainParsed('API001');
    expect(Object.keys(json)).toEqual(['code', 'status', 'checks', 'meaning', 'reads', 'hint', 'fix', 'docs']);
    const reads = json['reads'] as { check: string; kubernetes: string[]; probes: string[] }[];
    expect(reads.map((r) => r.check)).toEqual(json['checks']);
    for (const r of reads) expect(Object.keys(r)).toEqual(['check', 'kubernetes', 'probes']);
    expect((await explainCode({ code: 'SV001', output: 'json' })).endsWith('}\n')).toBe(true);
  });

  it.each([
    [undefined, `${DEFAULT_DOCS_BASE}#tl003`],
    [DOCS, `${DOCS}#tl003`],
    [`${DOCS}#somewhere`, `${DOCS}#tl003`],
  ])('links under --docs-base %s', async (docsBase, link) => {
    const more = docsBase === undefined ? {} : { docsBase };
    expect((await explainParsed('TL003', more))['docs']).toBe(link);
    expect(unwrapped(await explain('TL003', more))).toContain(`Docs: ${link}`);
  });

  it('escapes a docs base that would drive the terminal', async () => {
    const text = await explain('CB004', { docsBase: 'https://d.example/\u001b[2Jcodes.md' });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('\\x1b[2J');
  });

  it.each([
    ['CB099', /^CB099 is not a code of this version of inferencecache \(.+\); its CB codes are CB001, CB002, .*CB007$/],
    ['sup009', /^SUP009 is not a code of this version .*; its SUP codes are SUP001, SUP002, SUP003$/],
    ['XY001', /^XY001 is not a code of this version .*; run 'inferencecache codes' to list them$/],
    ['SW001', /^SW001 is not a code of this version .*; did you mean SV001 or SN001\?$/],
    ['cb04', /^unknown code "cb04"; did you mean CB004\?$/],
    ['API01', /^unknown code "API01"; did you mean API001\?$/],
    ['tl01', /^unknown code "tl01"; did you mean TL001, TL010, TL011 or TL012\?$/],
    ['hello', /^unknown code "hello": a code is two or three letters and three digits, such as CB004; run 'inferencecache codes'/],
  ])('refuses %j, naming the closest codes or how to list them', async (typed, message) => {
    expect(await refusal(typed)).toMatch(message);
  });
});

describe('the lookup', () => {
  const row = (code: string): CodeRow => ({ code, status: 'OK', checks: ['A'], meaning: 'm', hint: 'h', fix: 'f', reads: [], anchor: '' });
  const rows = ['AB001', 'AB002', 'CD001', 'CD010', 'CD011', 'CD012', 'CD013', 'CD014', 'CD015'].map(row);
  it('names at most five close codes, and says how many more there are', () => {
    const found = lookupCode(rows, 'CD01', '9.9.9');
    expect(found).toEqual({ ok: false, error: 'unknown code "CD01"; did you mean CD001, CD010, CD011, CD012 or CD013 (and 2 more)?' });
  });
  it('finds a code and names the version it does not know a code of', () => {
    expect(lookupCode(rows, 'ab002', '9.9.9')).toEqual({ ok: true, row: row('AB002') });
    expect(lookupCode(rows, 'AB003', '9.9.9')).toEqual({
      ok: false,
      error: 'AB003 is not a code of this version of inferencecache (9.9.9); its AB codes are AB001, AB002',
    });
  });
});

describe('explain CB004', () => {
  it('is test/golden/explain-cb004.txt', async () => {
    expectGolden(GOLDEN, await explain('cb004', { docsBase: DOCS }), import.meta.filename);
  });

  it('the writers take the explanation as the code table gives it', () => {
    const row = ROWS.find((r) => r.code === 'CB004');
    if (row === undefined) throw new Error('CB004 is not in the code table');
    const explanation: CodeExplanation = { ...row, docs: `${DOCS}#cb004` };
    expect(explainText(explanation)).toBe(fs.readFileSync(GOLDEN, 'utf8'));
    expect(JSON.parse(explainJson(explanation))).toMatchObject({ code: 'CB004', docs: `${DOCS}#cb004` });
  });
});
