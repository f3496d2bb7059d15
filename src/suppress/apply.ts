import type { Finding, SuppressedFinding } from '../report/finding.ts';
import { emitSuppression } from '../checks/suppressions.ts';
import { namespaceOf, scopeMatches, type SuppressionRule } from './rule.ts';

/** The findings of a run once the rules have been applied. */
export interface SuppressionOutcome {
  /** The findings no rule matched, in emission order, then the stage's own findings about the rules. */
  readonly findings: Finding[];
  /** The findings a rule matched, in emission order, each with the first rule that matched it. */
  readonly suppressed: SuppressedFinding[];
}

/**
 * Rules indexed for the findings of a large cluster: rules about one object and about one namespace
 * (annotations, possibly thousands) are looked up by key; the few written by hand are tried in turn.
 */
class RuleIndex {
  private readonly byObject = new Map<string, SuppressionRule>();
  private readonly byNamespace = new Map<string, SuppressionRule>();
  private readonly byCode = new Map<string, SuppressionRule[]>();

  constructor(rules: readonly SuppressionRule[]) {
    for (const rule of rules) {
      const { scope } = rule;
      if (scope.kind === 'resource') this.first(this.byObject, `${rule.code}\u0000${scope.resource}`, rule);
      else if (scope.kind === 'namespace') this.first(this.byNamespace, `${rule.code}\u0000${scope.namespace}`, rule);
      else this.byCode.set(rule.code, [...(this.byCode.get(rule.code) ?? []), rule]);
    }
  }

  private first(map: Map<string, SuppressionRule>, key: string, rule: SuppressionRule): void {
    if (!map.has(key)) map.set(key, rule);
  }

  /** The first rule that matches `f`: hand-written rules in their order, then the object's, then its namespace's. */
  match(f: Finding): SuppressionRule | undefined {
    const written = this.byCode.get(f.code)?.find((rule) => scopeMatches(rule.scope, f));
    if (written !== undefined) return written;
    const onObject = f.resource === undefined ? undefined : this.byObject.get(`${f.code}\u0000${f.resource}`);
    if (onObject !== undefined) return onObject;
    const namespace = namespaceOf(f.resource);
    return namespace === undefined ? undefined : this.byNamespace.get(`${f.code}\u0000${namespace}`);
  }
}

function described(rule: SuppressionRule): string {
  const { match, reason } = rule.ref;
  return `rule ${match}${reason === undefined ? '' : ` (reason: ${reason})`}`;
}

/**
 * Applies `rules` to `findings`: a finding a rule matches is set apart with that rule and no longer
 * counts. A rule past its expiry suppresses nothing and is reported (SUP002), as is a rule that
 * matched no finding (SUP001), so that stale rules get noticed and removed. Pure.
 */
export function applySuppressions(findings: readonly Finding[], rules: readonly SuppressionRule[], now: Date): SuppressionOutcome {
  if (rules.length === 0) return { findings: [...findings], suppressed: [] };
  const expired: SuppressionRule[] = [];
  const active: SuppressionRule[] = [];
  for (const rule of rules) (rule.expiresAt !== undefined && rule.expiresAt <= now.getTime() ? expired : active).push(rule);
  const index = new RuleIndex(active);
  const used = new Set<SuppressionRule>();
  const kept: Finding[] = [];
  const suppressed: SuppressedFinding[] = [];
  for (const finding of findings) {
    const rule = index.match(finding);
    if (rule === undefined) {
      kept.push(finding);
      continue;
    }
    used.add(rule);
    suppressed.push({ finding, rule: rule.ref });
  }
  const notices = [
    ...expired.map((rule) =>
      emitSuppression(
        'SUP002',
        rule.location,
        `${described(rule)} expired on ${rule.ref.expires ?? '?'}: the ${rule.code} findings it matches count again`,
      ),
    ),
    ...active
      .filter((rule) => !used.has(rule))
      .map((rule) => emitSuppression('SUP001', rule.location, `${described(rule)} matched no finding of this run`)),
  ];
  return { findings: [...kept, ...notices], suppressed };
}
