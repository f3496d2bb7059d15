import type { ApiAccess } from '../../../src/cluster/kinds/access.ts';
// ClusterRole rules and the API accesses the checks declare, both flattened to (group, resource, verb)
// grants so they can be compared in both directions.

/** One RBAC PolicyRule as rendered. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** `group/resource:verb`, the core group written as `core`, and `@named` when limited to named objects. */
export type Grant = string;

const grant = (group: string, resource: string, verb: string, named = false): Grant =>
  `${group === '' ? 'core' : group}/${resource}:${verb}${named ? '@named' : ''}`;

/** Every grant a set of rules gives (wildcards kept literally, so they show up as extras). */
export function grantsOfRules(rules: readonly PolicyRule[]): Set<Grant> {
  const out = new Set<Grant>();
  for (const rule of rules) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        for (const verb of rule.verbs ?? []) out.add(grant(group, resource, verb, (rule.resourceNames ?? []).length > 0));
      }
    }
  }
  return out;
}

/**
 * Every grant the declared reads need. Reads made by name only are granted for named objects, and only
 * when the operator names some (`named`).
 */
export function grantsOfReads(reads: readonly ApiAccess[], named = false): Set<Grant> {
  return new Set(
    reads
      .filter((r) => named || r.byNameOnly !== true)
      .flatMap((r) => r.verbs.map((verb) => grant(r.group, r.resource, verb, r.byNameOnly === true))),
  );
}

/** What the rules lack and what they give beyond the reads, each sorted. */
export function compareGrants(rules: readonly PolicyRule[], reads: readonly ApiAccess[], named = false): { missing: Grant[]; extra: Grant[] } {
  const given = grantsOfRules(rules);
  const needed = grantsOfReads(reads, named);
  return {
    missing: [...needed].filter((g) => !given.has(g)).sort(),
    extra: [...given].filter((g) => !needed.has(g)).sort(),
  };
}
