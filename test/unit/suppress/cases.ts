/**
 * The suppression stage's table: findings and rules → what is kept, what is set apart (with the rule
 * that matched), and the stage's own findings about the rules. Positive and negative cases side by side.
 */
import type { Finding } from '../../../src/report/finding.ts';
import { expiryOf, globPattern, parseSuppressFlag, type SuppressionRule } from '../../../src/suppress/rule.ts';
import { findingsOf } from '../../support/findings.ts';

const cb = findingsOf('CacheBackendHealth');
const ct = findingsOf('CacheTenantHealth');
const sv = findingsOf('ServerReachability');
const cp = findingsOf('CachePolicyCoverage');

export const NOW = new Date('2026-12-03T12:00:00Z');

/** A rule as the file writes it, named `rules.yaml:<line>`. */
export function fileRule(line: number, code: string, resource: string | undefined, reason: string, expires?: string): SuppressionRule {
  return {
    code,
    scope: resource === undefined ? { kind: 'any' } : { kind: 'glob', pattern: globPattern(resource) },
    ref: {
      source: `rules.yaml:${line}`,
      match: resource === undefined ? code : `${code}=${resource}`,
      reason,
      ...(expires === undefined ? {} : { expires }),
    },
    location: `rules.yaml:${line}`,
    ...(expires === undefined ? {} : { expiresAt: expiryOf(expires) }),
  };
}

/** A rule as an annotation on one object writes it. */
export function onObject(resource: string, code: string, reason?: string): SuppressionRule {
  return {
    code,
    scope: { kind: 'resource', resource },
    ref: {
      source: `annotation inferencecache.io/doctor-suppress on ${resource}`,
      match: code,
      ...(reason === undefined ? {} : { reason }),
    },
    location: resource,
  };
}

/** A rule as an annotation on a Namespace writes it. */
export function onNamespace(namespace: string, code: string): SuppressionRule {
  return {
    code,
    scope: { kind: 'namespace', namespace },
    ref: { source: `annotation inferencecache.io/doctor-suppress on namespace/${namespace}`, match: code },
    location: `namespace/${namespace}`,
  };
}

/** `n` distinct codes of the shape of a code that no check declares (no prefix starts with X): XA000, XA001, … */
export function unknownCodes(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `X${String.fromCharCode(65 + Math.floor(i / 1000))}${String(i % 1000).padStart(3, '0')}`);
}

export interface SuppressionCase {
  readonly name: string;
  readonly findings: readonly Finding[];
  readonly rules: readonly SuppressionRule[];
  readonly now?: Date;
  /** `code resource` of each kept finding, in order (the stage's own included). */
  readonly kept: readonly string[];
  /** `code resource <- rule source` of each suppressed finding. */
  readonly suppressed: readonly string[];
}

const slowA = cb('CB004', 'cachebackend/prod/a', 'old');
const slowB = cb('CB004', 'cachebackend/prod/b', 'old');
const slowDev = cb('CB004', 'cachebackend/dev/a', 'old');
const quota = ct('CT001', 'cachetenant/prod/team-a', 'over');
const down = sv('SV001', undefined, 'down');
const noPolicy = cp('CP001', 'namespace/prod', 'none');

export const SUPPRESSION_CASES: readonly SuppressionCase[] = [
  {
    name: 'no rules: every finding kept',
    findings: [slowA, quota],
    rules: [],
    kept: ['CB004 cachebackend/prod/a', 'CT001 cachetenant/prod/team-a'],
    suppressed: [],
  },
  {
    name: '--suppress CODE: every finding of the code, and no other',
    findings: [slowA, quota, slowB],
    rules: [parseSuppressFlag('CB004')],
    kept: ['CT001 cachetenant/prod/team-a'],
    suppressed: ['CB004 cachebackend/prod/a <- --suppress', 'CB004 cachebackend/prod/b <- --suppress'],
  },
  {
    name: '--suppress CODE=GLOB: only resources the glob matches; * crosses /',
    findings: [slowA, slowDev, quota],
    rules: [parseSuppressFlag('CB004=*/prod/*')],
    kept: ['CB004 cachebackend/dev/a', 'CT001 cachetenant/prod/team-a'],
    suppressed: ['CB004 cachebackend/prod/a <- --suppress'],
  },
  {
    name: '? is one character; the glob matches the whole resource',
    findings: [slowA, slowB],
    rules: [parseSuppressFlag('CB004=cachebackend/prod/?'), parseSuppressFlag('CT001=cachetenant/prod')],
    kept: ['SUP001 --suppress CT001=cachetenant/prod'],
    suppressed: ['CB004 cachebackend/prod/a <- --suppress', 'CB004 cachebackend/prod/b <- --suppress'],
  },
  {
    name: 'a finding about no resource is matched by a code-only rule, not by a glob',
    findings: [down],
    rules: [parseSuppressFlag('SV001=host*')],
    kept: ['SV001 ', 'SUP001 --suppress SV001=host*'],
    suppressed: [],
  },
  {
    name: 'an annotation on an object: its findings of the listed code, not its neighbour’s',
    findings: [slowA, slowB],
    rules: [onObject('cachebackend/prod/a', 'CB004', 'migrating')],
    kept: ['CB004 cachebackend/prod/b'],
    suppressed: ['CB004 cachebackend/prod/a <- annotation inferencecache.io/doctor-suppress on cachebackend/prod/a'],
  },
  {
    name: 'an annotation on a Namespace: findings about anything in it, and about the namespace itself',
    findings: [slowA, slowDev, noPolicy, down],
    rules: [onNamespace('prod', 'CB004'), onNamespace('prod', 'CP001')],
    kept: ['CB004 cachebackend/dev/a', 'SV001 '],
    suppressed: [
      'CB004 cachebackend/prod/a <- annotation inferencecache.io/doctor-suppress on namespace/prod',
      'CP001 namespace/prod <- annotation inferencecache.io/doctor-suppress on namespace/prod',
    ],
  },
  {
    name: 'an annotated code that no finding of the object has is reported (SUP001) with the object',
    findings: [slowA],
    rules: [onObject('cachebackend/prod/a', 'EP001'), onObject('cachebackend/prod/a', 'CB003')],
    kept: ['CB004 cachebackend/prod/a', 'SUP001 cachebackend/prod/a', 'SUP001 cachebackend/prod/a'],
    suppressed: [],
  },
  {
    name: 'an annotated entry that is no code is reported apart (SUP003), not as a rule that matched nothing',
    findings: [slowA],
    rules: [onObject('cachebackend/prod/a', 'EP001'), onObject('cachebackend/prod/a', 'NOTACODE')],
    kept: ['CB004 cachebackend/prod/a', 'SUP001 cachebackend/prod/a', 'SUP003 cachebackend/prod/a'],
    suppressed: [],
  },
  {
    name: 'an annotation listing 20000 codes that do not exist: one SUP003 for the object; its real code still suppresses',
    findings: [slowA, slowB],
    rules: [onObject('cachebackend/prod/a', 'CB004'), ...unknownCodes(20_000).map((code) => onObject('cachebackend/prod/a', code))],
    kept: ['CB004 cachebackend/prod/b', 'SUP003 cachebackend/prod/a'],
    suppressed: ['CB004 cachebackend/prod/a <- annotation inferencecache.io/doctor-suppress on cachebackend/prod/a'],
  },
  {
    name: 'codes that do not exist on two objects and a Namespace: one SUP003 for each, in the order met',
    findings: [],
    rules: [
      onObject('cachebackend/prod/a', 'XA001'),
      onNamespace('dev', 'cb004'),
      onObject('cachebackend/prod/b', 'XA001'),
      onObject('cachebackend/prod/a', 'XA002'),
    ],
    kept: ['SUP003 cachebackend/prod/a', 'SUP003 namespace/dev', 'SUP003 cachebackend/prod/b'],
    suppressed: [],
  },
  {
    name: 'the first matching rule wins; a rule left with nothing is reported',
    findings: [slowA],
    rules: [fileRule(2, 'CB004', 'cachebackend/*', 'fleet-wide'), onObject('cachebackend/prod/a', 'CB004')],
    kept: ['SUP001 cachebackend/prod/a'],
    suppressed: ['CB004 cachebackend/prod/a <- rules.yaml:2'],
  },
  {
    name: 'a rule expiring today still suppresses (a date lasts to its end, UTC)',
    findings: [quota],
    rules: [fileRule(5, 'CT001', undefined, 'quota raise pending', '2026-12-03')],
    kept: [],
    suppressed: ['CT001 cachetenant/prod/team-a <- rules.yaml:5'],
  },
  {
    name: 'a rule past its date suppresses nothing and is reported (SUP002), not also as unmatched',
    findings: [quota],
    rules: [fileRule(5, 'CT001', undefined, 'quota raise pending', '2026-12-02')],
    kept: ['CT001 cachetenant/prod/team-a', 'SUP002 rules.yaml:5'],
    suppressed: [],
  },
  {
    name: 'an RFC 3339 expiry is an instant',
    findings: [quota],
    rules: [fileRule(7, 'CT001', undefined, 'r', '2026-12-03T11:59:59Z'), fileRule(8, 'CT001', undefined, 'r', '2026-12-03T12:00:01Z')],
    kept: ['SUP002 rules.yaml:7'],
    suppressed: ['CT001 cachetenant/prod/team-a <- rules.yaml:8'],
  },
];
