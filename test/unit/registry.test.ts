import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_CODES, CHECK_NAMES, CODES } from '../../src/report/codes.ts';
import { codesMarkdown } from '../../src/report/codes-listing.ts';
import { STATUSES } from '../../src/report/status.ts';

describe('the code table', () => {
  it.each(ALL_CODES)('%s has one status, known checks and a one-line meaning', (code) => {
    const spec = CODES[code];
    expect(code).toMatch(/^[A-Z]{2,3}\d{3}$/);
    expect(STATUSES).toContain(spec.status);
    expect(spec.checks.length).toBeGreaterThan(0);
    for (const check of spec.checks) expect(CHECK_NAMES).toContain(check);
    expect(spec.meaning.trim()).not.toBe('');
    expect(spec.meaning).not.toMatch(/\n/);
  });

  it('has every upstream code with its fixed status', () => {
    const upstream: Record<string, string> = {
      API001: 'FAIL', SV001: 'FAIL', SV002: 'FAIL', SV003: 'OK',
      SN001: 'FAIL', SN002: 'WARN', SN003: 'INFO', SN004: 'OK', SN005: 'WARN',
      PL001: 'FAIL', PL002: 'OK', PL003: 'WARN', PB001: 'FAIL', PB002: 'OK', PB003: 'WARN',
      CB001: 'WARN', CB002: 'WARN', CB003: 'WARN', CB004: 'WARN', CB005: 'WARN', CB006: 'OK', CB007: 'WARN',
      EP001: 'WARN', EP002: 'OK', EP003: 'WARN', OP001: 'WARN',
      CT001: 'WARN', CT002: 'OK', CP001: 'INFO', CP002: 'OK', CP003: 'WARN',
    };
    expect(Object.keys(upstream)).toHaveLength(31);
    for (const [code, status] of Object.entries(upstream)) expect(CODES[code as keyof typeof CODES]?.status).toBe(status);
  });

  it('keeps the nine upstream checks first, in their fixed order', () => {
    expect(CHECK_NAMES.slice(0, 9)).toEqual([
      'ServerReachability', 'SnapshotReachability', 'PolicyReachability', 'ProbeReachability',
      'CacheBackendHealth', 'EnginePodInjectionAudit', 'OrphanPodCheck', 'CacheTenantHealth', 'CachePolicyCoverage',
    ]);
  });

  it('docs/codes.md is the one generated from the table (run `npm run docs` after changing it)', () => {
    const committed = readFileSync(new URL('../../docs/codes.md', import.meta.url), 'utf8');
    expect(committed).toBe(codesMarkdown());
  });
});
