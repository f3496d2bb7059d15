import type { Finding, SuppressedFinding } from '../report/finding.ts';
import { codeTable } from '../checks/codes.ts';
import { quoteSome } from '../checks/helpers.ts';
import { emitSuppression } from '../checks/suppressions.ts';
import { namespaceOf } from '../report/resource-namespace.ts';
import { scopeMatches, type SuppressionRule } from './rule.ts';

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

  /** How many hand-written rules have been tried so far, to pause every {@link TESTS_PER_STEP}. */
  private tried = 0;

  /**
   * The first rule that matches `f`: hand-written rules in their order, then the object's, then its
   * namespace's. Yields every {@link TESTS_PER_STEP} hand-written rules it tries: thousands of rules on
   * thousands of findings take long enough that the caller must be able to pause in between.
   */
  *match(f: Finding): Generator<void, SuppressionRule | undefined> {
    for (const rule of this.byCode.get(f.code) ?? []) {
      if (scopeMatches(rule.scope, f)) return rule;
      if (++this.tried % TESTS_PER_STEP === 0) yield;
    }
    const onObject = f.resource === undefined ? undefined : this.byObject.get(`${f.code}\u0000${f.resource}`);
    if (onObject !== undefined) return onObject;
    const namespace = namespaceOf(f.resource);
    return namespace === undefined ? undefined : this.byNamespace.get(`${f.code}\u0000${namespace}`);
  }
}

/** How many rules the stage tries between two chances for its caller to pause. */
const TESTS_PER_STEP = 256;

/** How many of the nonexistent codes written in one place SUP003 names; it counts them all. */
export const NAMED_UNKNOWN_CODES = 5;
/** The longest entry SUP003 quotes whole: a code has at most six characters, so a longer entry is cut. */
export const MAX_NAMED_CODE_LENGTH = 32;

/**
 * SUP003 for the rules written in one place (one annotated object) that name no code of the table:
 * one finding however many there are, naming the first few, each quoted and cut short.
 */
function unknownCodes(rules: readonly [SuppressionRule, ...SuppressionRule[]]): Finding {
  const [first] = rules;
  const n = rules.length;
  const named = quoteSome(
    rules.map((rule) => rule.code),
    NAMED_UNKNOWN_CODES,
    MAX_NAMED_CODE_LENGTH,
  );
  const what = n === 1 ? '1 code that does not exist' : `${n} codes that do not exist`;
  const nothing = n === 1 ? 'it suppresses nothing' : 'they suppress nothing';
  return emitSuppression('SUP003', first.location, `${first.ref.source} lists ${what}: ${named}; ${nothing}`);
}

/** Rules grouped by where they are written, in the order first met. */
function byLocation(rules: readonly SuppressionRule[]): [SuppressionRule, ...SuppressionRule[]][] {
  const groups = new Map<string, [SuppressionRule, ...SuppressionRule[]]>();
  for (const rule of rules) {
    const group = groups.get(rule.location);
    if (group === undefined) groups.set(rule.location, [rule]);
    else group.push(rule);
  }
  return [...groups.values()];
}

function described(rule: SuppressionRule): string {
  const { match, reason } = rule.ref;
  return `rule ${match}${reason === undefined ? '' : ` (reason: ${reason})`}`;
}

/**
 * Applies rules to findings taken one at a time: a finding a rule matches is set apart with that rule
 * and no longer counts. A rule past its expiry suppresses nothing and is reported (SUP002), as is a rule
 * that matched no finding (SUP001), so that stale rules get noticed and removed. Rules naming a code that
 * is not in `known` (only an annotation can write one: the flag and the file refuse them) can match
 * nothing; they are reported together, one SUP003 per annotated object, so that an annotation listing
 * thousands of them adds one finding, not thousands. One finding at a time, so that a run can pause
 * between findings (many rules against many findings is the one long computation of a run). Pure.
 */
export class SuppressionStage {
  private readonly expired: SuppressionRule[] = [];
  private readonly active: SuppressionRule[] = [];
  private readonly unknown: SuppressionRule[] = [];
  private readonly index: RuleIndex;
  private readonly used = new Set<SuppressionRule>();
  private readonly kept: Finding[] = [];
  private readonly suppressed: SuppressedFinding[] = [];
  /** How many findings the rules have been applied to. */
  taken = 0;

  constructor(rules: readonly SuppressionRule[], now: Date, known: ReadonlySet<string> = new Set(codeTable().map((row) => row.code))) {
    for (const rule of rules) {
      if (!known.has(rule.code)) this.unknown.push(rule);
      else (rule.expiresAt !== undefined && rule.expiresAt <= now.getTime() ? this.expired : this.active).push(rule);
    }
    this.index = new RuleIndex(this.active);
  }

  /**
   * Applies the rules to `findings` in order, pausing now and then (a `yield`) so that a caller running
   * it in time slices can let other work in; {@link taken} counts the findings done.
   */
  *steps(findings: readonly Finding[]): Generator<void, void> {
    for (const finding of findings) {
      const rule = this.active.length === 0 ? undefined : yield* this.index.match(finding);
      if (rule === undefined) this.kept.push(finding);
      else {
        this.used.add(rule);
        this.suppressed.push({ finding, rule: rule.ref });
      }
      this.taken++;
    }
  }

  /**
   * The outcome: the findings kept, then `untried` (findings the rules were not applied to, kept as they
   * are: a run interrupted before it got to them), then the stage's own findings about the rules.
   */
  finish(untried: readonly Finding[] = []): SuppressionOutcome {
    const notices = [
      ...this.expired.map((rule) =>
        emitSuppression(
          'SUP002',
          rule.location,
          `${described(rule)} expired on ${rule.ref.expires ?? '?'}: the ${rule.code} findings it matches count again`,
        ),
      ),
      ...this.active
        .filter((rule) => !this.used.has(rule))
        .map((rule) => emitSuppression('SUP001', rule.location, `${described(rule)} matched no finding of this run`)),
      ...byLocation(this.unknown).map(unknownCodes),
    ];
    return { findings: [...this.kept, ...untried, ...notices], suppressed: this.suppressed };
  }
}

/** Applies `rules` to every one of `findings` (see {@link SuppressionStage}). Pure. */
export function applySuppressions(
  findings: readonly Finding[],
  rules: readonly SuppressionRule[],
  now: Date,
  known?: ReadonlySet<string>,
): SuppressionOutcome {
  if (rules.length === 0) return { findings: [...findings], suppressed: [] };
  const stage = new SuppressionStage(rules, now, known);
  for (const _ of stage.steps(findings));
  return stage.finish();
}
