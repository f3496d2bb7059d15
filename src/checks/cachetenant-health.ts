import { goQuote } from '../go/quote.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration } from './check.ts';
import { conditionOf } from './helpers.ts';

const CODES = {
  API001,
  CT001: {
    status: 'WARN',
    meaning: 'The CacheTenant has exceeded its index-entry quota.',
    hint: "Raise spec.quota.maxIndexEntries if the tenant's working set grew on purpose; otherwise its oldest entries are being evicted, which costs cache hits.",
    fix: "1. Compare usage with the quota: kubectl -n <namespace> get cachetenant <name> -o jsonpath='{.status.indexEntries} {.spec.quota.maxIndexEntries}'. 2. If the tenant's working set grew on purpose, raise spec.quota.maxIndexEntries (kubectl -n <namespace> edit cachetenant <name>). 3. Otherwise keep the quota: the tenant's oldest entries are evicted, which costs it cache hits and protects the other tenants. The QuotaExceeded condition clears once its entries fit.",
  },
  CT002: {
    status: 'OK',
    meaning: 'The CacheTenant is within its quota.',
    hint: 'Nothing to do.',
    fix: "Nothing needs doing: the tenant's index entries are within spec.quota.maxIndexEntries. Watch status.indexEntries when its workload grows.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/** CacheTenantHealth: a tenant whose QuotaExceeded condition is True is over its index quota. */
export const cacheTenantHealth = defineCheck({
  name: 'CacheTenantHealth',
  codes: CODES,
  reads: { cacheTenants: 'items' },
  probes: {},
  judge({ state }, emit) {
    return state.cacheTenants.map((t) => {
      const resource = `cachetenant/${t.namespace}/${t.name}`;
      const exceeded = conditionOf(t.conditions, 'QuotaExceeded');
      if (exceeded?.status !== 'True') return emit('CT002', resource, `tenant ${goQuote(t.tenantID)} is within its quota`);
      const entries = t.indexEntries === undefined ? 'unknown' : String(t.indexEntries);
      const quota = t.maxIndexEntries === undefined ? 'unset' : String(t.maxIndexEntries);
      const detail = exceeded.message === '' ? '' : ` — ${exceeded.message}`;
      return emit(
        'CT001',
        resource,
        `QuotaExceeded=True for tenant ${goQuote(t.tenantID)}: ${entries} index entries, maxIndexEntries quota ${quota}${detail}`,
      );
    });
  },
});
