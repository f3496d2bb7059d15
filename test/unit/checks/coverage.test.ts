/**
 * Registry test: every code of the code table is produced by some table case, and every produced
 * finding agrees with the table (status, check), which in turn agrees with upstream-doctor.md.
 */
import { describe, expect, it } from 'vitest';
import { judge } from '../../../src/checks/index.ts';
import { ALL_CODES, CODES, type CheckName, type Code } from '../../../src/report/codes.ts';
import type { Finding } from '../../../src/report/finding.ts';
import { cacheBackendTable } from './cachebackend.cases.ts';
import { cachePolicyTable } from './cachepolicy.cases.ts';
import { cacheTenantTable } from './cachetenant.cases.ts';
import { enginePodTable } from './engine-pod.cases.ts';
import { imagePullTable } from './image-pull.cases.ts';
import { SPEC_STATUS, type CheckTable } from './fixtures.ts';
import { judgeCases } from './judge.cases.ts';
import { namespaceTable } from './namespace.cases.ts';
import { networkPolicyTable } from './network-policy.cases.ts';
import { nodeFitTable } from './node-fit.cases.ts';
import { orphanPodTable } from './orphan-pods.cases.ts';
import { policyTable, probeTable } from './routes.cases.ts';
import { serverTable } from './server.cases.ts';
import { snapshotTable } from './snapshot.cases.ts';

const TABLES: readonly CheckTable[] = [
  serverTable,
  snapshotTable,
  policyTable,
  probeTable,
  cacheBackendTable,
  enginePodTable,
  orphanPodTable,
  cacheTenantTable,
  cachePolicyTable,
  namespaceTable,
  nodeFitTable,
  imagePullTable,
  networkPolicyTable,
];

/** Every finding every table case produces, from the check alone and from the whole run. */
const produced: readonly Finding[] = [
  ...TABLES.flatMap((t) => t.cases.flatMap((c) => [...t.check(c.input), ...judge(c.input)])),
  ...judgeCases.flatMap((c) => judge(c.input)),
];

/** The codes upstream-doctor.md lists, plus ours for Deviation 6 and for the checks beyond upstream. */
const EXPECTED_CODES: readonly Code[] = [
  'API001',
  ...(['SV001', 'SV002', 'SV003'] as const),
  ...(['SN001', 'SN002', 'SN003', 'SN004', 'SN005'] as const),
  ...(['PL001', 'PL002', 'PL003', 'PB001', 'PB002', 'PB003'] as const),
  ...(['CB001', 'CB002', 'CB003', 'CB004', 'CB005', 'CB006', 'CB007'] as const),
  ...(['EP001', 'EP002', 'EP003', 'OP001', 'CT001', 'CT002', 'CP001', 'CP002', 'CP003'] as const),
  ...(['NS001', 'NS002'] as const),
  ...(['NF001', 'NF002', 'NF003'] as const),
  ...(['IP001', 'IP002', 'IP003', 'IP004', 'IP005', 'IP006'] as const),
  ...(['NP001', 'NP002', 'NP003', 'NP004'] as const),
];

/** Our checks that report a failed Kubernetes read with API001, beside upstream's. */
const OUR_API001_CHECKS: readonly CheckName[] = ['NodeFit', 'ImagePullability'];

/** which check may carry which upstream code (API001: every Kubernetes check). */
const UPSTREAM_CHECKS: Partial<Record<Code, readonly CheckName[]>> = {
  API001: ['CacheBackendHealth', 'EnginePodInjectionAudit', 'OrphanPodCheck', 'CacheTenantHealth', 'CachePolicyCoverage'],
};

describe('code registry', () => {
  it('the code table holds exactly the upstream codes plus ours', () => {
    expect([...ALL_CODES].sort()).toStrictEqual([...EXPECTED_CODES].sort());
  });

  it.each(ALL_CODES)('%s is produced by at least one table case', (code) => {
    expect(produced.some((f) => f.code === code)).toBe(true);
  });

  it.each(ALL_CODES)('%s has the status of upstream-doctor.md R-0.5 and a one-line meaning', (code) => {
    const spec = CODES[code];
    expect(spec.status).toBe(SPEC_STATUS[code]);
    expect(spec.meaning.trim().length).toBeGreaterThan(0);
    expect(spec.meaning).not.toMatch(/[\r\n]/);
    expect(spec.checks.length).toBeGreaterThan(0);
    for (const check of UPSTREAM_CHECKS[code] ?? []) expect(spec.checks).toContain(check);
  });

  it('every produced finding carries its code table status and one of its checks', () => {
    expect(produced.length).toBeGreaterThan(0);
    for (const f of produced) {
      const spec = CODES[f.code];
      expect({ code: f.code, status: f.status }).toStrictEqual({ code: f.code, status: spec.status });
      expect(spec.checks as readonly string[]).toContain(f.check);
    }
  });

  it('every produced (code, check) pair is one upstream allows', () => {
    const prefixOf: Readonly<Record<string, CheckName>> = {
      SV: 'ServerReachability',
      SN: 'SnapshotReachability',
      PL: 'PolicyReachability',
      PB: 'ProbeReachability',
      CB: 'CacheBackendHealth',
      EP: 'EnginePodInjectionAudit',
      OP: 'OrphanPodCheck',
      CT: 'CacheTenantHealth',
      CP: 'CachePolicyCoverage',
      NS: 'NamespaceScope',
      NF: 'NodeFit',
      IP: 'ImagePullability',
      NP: 'NetworkPolicyReachability',
    };
    for (const f of produced) {
      if (f.code === 'API001') expect([...(UPSTREAM_CHECKS.API001 ?? []), ...OUR_API001_CHECKS]).toContain(f.check);
      else expect(f.check).toBe(prefixOf[f.code.slice(0, 2)]);
    }
  });
});
