import { goQuote } from '../go/quote.ts';
import { API001 } from './api-read.ts';
import { defineCheck, type CodeDeclaration } from './check.ts';
import { byteCompare } from './helpers.ts';

const CODES = {
  API001,
  CP001: {
    status: 'INFO',
    meaning: 'A namespace with CacheBackends has no CachePolicy; server defaults apply.',
    hint: "Nothing is broken; add a CachePolicy to the namespace if its workloads need other eviction or lookup settings than the server's defaults.",
    fix: "Nothing is broken: the server's default eviction and lookup settings apply in this namespace. If its workloads need others, create one CachePolicy there (kubectl -n <namespace> apply -f policy.yaml) setting only the fields you change, such as eviction or minimumMatchedTokens. To keep the defaults on purpose, suppress CP001 for the namespace.",
  },
  CP002: {
    status: 'OK',
    meaning: 'A namespace with CacheBackends has exactly one CachePolicy.',
    hint: 'Nothing to do.',
    fix: 'Nothing needs doing: the namespace has exactly one CachePolicy, and it is the one in force. Keep it at one; admission refuses a second.',
  },
  CP003: {
    status: 'WARN',
    meaning: 'A namespace has more than one CachePolicy; all but the first by name are inert.',
    hint: 'Merge the CachePolicies of the namespace into one and delete the others, so that the policy in force is the one you read.',
    fix: '1. List them: kubectl -n <namespace> get cachepolicies; the controller keeps the first by name and ignores the others. 2. Merge the settings you want into one of them. 3. Delete the rest (kubectl -n <namespace> delete cachepolicy <name>), so that the policy you read is the policy in force.',
  },
} as const satisfies Record<string, CodeDeclaration>;

/**
 * CachePolicyCoverage: each namespace that holds a CacheBackend should hold exactly one CachePolicy.
 * Namespaces are reported in byte-wise order; policies elsewhere are ignored, and the policies are
 * looked at only when some namespace holds a backend.
 */
export const cachePolicyCoverage = defineCheck({
  name: 'CachePolicyCoverage',
  codes: CODES,
  reads: { cacheBackends: 'items', cachePolicies: 'items' },
  probes: {},
  judge({ state }, emit) {
    const namespaces = [...new Set(state.cacheBackends.map((b) => b.namespace))].sort(byteCompare);
    if (namespaces.length === 0) return [];
    const perNamespace = new Map<string, number>();
    for (const p of state.cachePolicies) perNamespace.set(p.namespace, (perNamespace.get(p.namespace) ?? 0) + 1);
    return namespaces.map((ns) => {
      const resource = `namespace/${ns}`;
      const n = perNamespace.get(ns) ?? 0;
      if (n === 0)
        return emit(
          'CP001',
          resource,
          `namespace ${goQuote(ns)} has CacheBackends but no CachePolicy, so the server's default eviction and lookup policy applies`,
        );
      if (n === 1) return emit('CP002', resource, `namespace ${goQuote(ns)} has exactly 1 CachePolicy`);
      return emit(
        'CP003',
        resource,
        `namespace ${goQuote(ns)} has ${n} CachePolicies but only one is allowed: the controller keeps the first by name and ignores the others. Delete the extra ones so it is clear which policy applies`,
      );
    });
  },
});
