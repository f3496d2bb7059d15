import { emitterFor, type Finding } from '../report/finding.ts';
import { goQuote } from '../report/gofmt.ts';
import { byteCompare } from './helpers.ts';
import type { CheckInput } from './input.ts';

const emit = emitterFor('CachePolicyCoverage');

/**
 * CachePolicyCoverage: each namespace that holds a CacheBackend should hold exactly one CachePolicy.
 * Namespaces are reported in byte-wise order; policies elsewhere are ignored.
 */
export function cachePolicyCoverage({ state }: CheckInput): Finding[] {
  const { cacheBackends, cachePolicies } = state;
  if (!cacheBackends.ok) return [emit('API001', 'CacheBackend', `listing CacheBackend objects failed: ${cacheBackends.error}`)];
  const namespaces = [...new Set(cacheBackends.items.map((b) => b.namespace))].sort(byteCompare);
  if (namespaces.length === 0) return [];
  if (!cachePolicies.ok) return [emit('API001', 'CachePolicy', `listing CachePolicy objects failed: ${cachePolicies.error}`)];
  const perNamespace = new Map<string, number>();
  for (const p of cachePolicies.items) perNamespace.set(p.namespace, (perNamespace.get(p.namespace) ?? 0) + 1);
  return namespaces.map((ns) => {
    const resource = `namespace/${ns}`;
    const n = perNamespace.get(ns) ?? 0;
    if (n === 0) return emit('CP001', resource, `namespace ${goQuote(ns)} has CacheBackends but no CachePolicy, so the server's default eviction and lookup policy applies`);
    if (n === 1) return emit('CP002', resource, `namespace ${goQuote(ns)} has exactly 1 CachePolicy`);
    return emit(
      'CP003',
      resource,
      `namespace ${goQuote(ns)} has ${n} CachePolicies but only one is allowed: the controller keeps the first by name and ignores the others. Delete the extra ones so it is clear which policy applies`,
    );
  });
}
