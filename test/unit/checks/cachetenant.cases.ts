/** CacheTenantHealth (CT): docs/upstream.md. */
import { cacheTenantHealth } from '../../../src/checks/cachetenant-health.ts';

import { cond, failed, given, ok, tenant, type Case, type CheckTable } from './fixtures.ts';
import type { CacheTenant } from '../../../src/cluster/kinds/cache-tenant.ts';

const R = 'cachetenant/ns1/t1';
const tenants = (...items: CacheTenant[]) => given({ cacheTenants: ok(items) });
const exceeded = (message = '') => [cond('QuotaExceeded', 'True', 'OverQuota', message)];

export const cacheTenantCases: readonly Case[] = [
  {
    name: 'QuotaExceeded True with entries, quota and message → CT001 with all facts after an em dash',
    input: tenants(tenant({ indexEntries: 1200, maxIndexEntries: 1000, conditions: exceeded('evicting oldest entries') })),
    expected: [['CT001', R, ['"tenant-a"', '1200', '1000', ' — evicting oldest entries']]],
  },
  {
    name: 'QuotaExceeded True, entries and quota absent → unknown / unset',
    input: tenants(tenant({ conditions: exceeded('over') })),
    expected: [['CT001', R, ['unknown', 'unset', ' — over']]],
  },
  {
    name: 'QuotaExceeded True, empty condition message → no em dash appended',
    input: tenants(tenant({ indexEntries: 0, maxIndexEntries: 0, conditions: exceeded('') })),
    expected: [['CT001', R, ['"tenant-a"', /\b0\b.*\b0\b/], ['—', 'unknown', 'unset']]],
  },
  {
    name: 'QuotaExceeded True, quota present but entries absent → unknown entries',
    input: tenants(tenant({ maxIndexEntries: 50, conditions: exceeded() })),
    expected: [['CT001', R, ['unknown', '50'], ['unset']]],
  },
  {
    name: 'QuotaExceeded False → CT002',
    input: tenants(tenant({ conditions: [cond('QuotaExceeded', 'False')] })),
    expected: [['CT002', R, ['"tenant-a"']]],
  },
  {
    name: 'QuotaExceeded Unknown → CT002',
    input: tenants(tenant({ conditions: [cond('QuotaExceeded', 'Unknown')] })),
    expected: [['CT002', R]],
  },
  {
    name: 'QuotaExceeded "true" (not exact) → CT002',
    input: tenants(tenant({ conditions: [cond('QuotaExceeded', 'true')] })),
    expected: [['CT002', R]],
  },
  { name: 'no conditions → CT002', input: tenants(tenant()), expected: [['CT002', R, ['"tenant-a"']]] },
  {
    name: 'first condition of the type wins: [False, True] → CT002',
    input: tenants(tenant({ conditions: [cond('QuotaExceeded', 'False'), ...exceeded('x')] })),
    expected: [['CT002', R]],
  },
  {
    name: 'first condition of the type wins: [True, False] → CT001',
    input: tenants(tenant({ conditions: [cond('Ready', 'False'), ...exceeded('x'), cond('QuotaExceeded', 'False')] })),
    expected: [['CT001', R, [' — x']]],
  },
  {
    name: 'resource uses the object name, message the tenantID; list order kept',
    input: tenants(
      tenant({ name: 'zz', namespace: 'b', tenantID: 'team-z', conditions: exceeded() }),
      tenant({ name: 'aa', namespace: 'a', tenantID: 'team-a' }),
    ),
    expected: [
      ['CT001', 'cachetenant/b/zz', ['"team-z"']],
      ['CT002', 'cachetenant/a/aa', ['"team-a"']],
    ],
  },
  {
    name: 'tenants read failed → API001 CacheTenant',
    input: given({ cacheTenants: failed('the server could not find the requested resource') }),
    expected: [['API001', 'CacheTenant', ['could not find the requested resource']]],
  },
  { name: 'no tenants → nothing', input: given({}), expected: [] },
];

export const cacheTenantTable: CheckTable = { check: cacheTenantHealth, cases: cacheTenantCases };
