import { emitterFor, type Finding } from '../report/finding.ts';
import { goQuote } from '../report/gofmt.ts';
import { conditionOf } from './helpers.ts';
import type { CheckInput } from './input.ts';

const emit = emitterFor('CacheTenantHealth');

/** CacheTenantHealth: a tenant whose QuotaExceeded condition is True is over its index quota. */
export function cacheTenantHealth({ state }: CheckInput): Finding[] {
  const { cacheTenants } = state;
  if (!cacheTenants.ok) return [emit('API001', 'CacheTenant', `listing CacheTenant objects failed: ${cacheTenants.error}`)];
  return cacheTenants.items.map((t) => {
    const resource = `cachetenant/${t.namespace}/${t.name}`;
    const exceeded = conditionOf(t.conditions, 'QuotaExceeded');
    if (exceeded?.status !== 'True') return emit('CT002', resource, `tenant ${goQuote(t.tenantID)} is within its quota`);
    const entries = t.indexEntries === undefined ? 'unknown' : String(t.indexEntries);
    const quota = t.maxIndexEntries === undefined ? 'unset' : String(t.maxIndexEntries);
    const detail = exceeded.message === '' ? '' : ` — ${exceeded.message}`;
    return emit('CT001', resource, `QuotaExceeded=True for tenant ${goQuote(t.tenantID)}: ${entries} index entries, maxIndexEntries quota ${quota}${detail}`);
  });
}
