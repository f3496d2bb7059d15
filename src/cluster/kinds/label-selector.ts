/**
 * Label selectors, with the two semantics the doctor needs:
 * - the upstream engineSelector rule (`engineSelectorSelects`): equality pairs only, and a label the
 *   object lacks reads as the empty string, exactly as the upstream controller and doctor match it;
 * - Kubernetes `LabelSelector` semantics (`matchSelector`) with `matchExpressions`, three-valued, for
 *   NetworkPolicies, whose verdict may depend on labels the doctor cannot see.
 *
 * @module
 */

import { goQuote } from '../../go/quote.ts';

/** A label selector as written (`matchLabels` and `matchExpressions`). */
export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly SelectorRequirement[];
}

/** One `matchExpressions` entry; the operator is kept as written so an unknown one can match nothing. */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values: readonly string[];
}

/** Equality pairs such as `spec.engineSelector.matchLabels`. */
export type MatchLabels = Readonly<Record<string, string>>;

/** Whether an engineSelector has at least one pair (only such a selector selects anything). */
export function hasSelector(matchLabels: MatchLabels | undefined): matchLabels is MatchLabels {
  return matchLabels !== undefined && Object.keys(matchLabels).length > 0;
}

/**
 * Whether an engineSelector selects a set of labels, by the upstream rule: an empty or absent selector
 * selects nothing, and a missing label reads as the empty string, so a pair `k: ""` selects objects
 * without label `k`.
 */
export function engineSelectorSelects(matchLabels: MatchLabels | undefined, labels: MatchLabels): boolean {
  if (!hasSelector(matchLabels)) return false;
  for (const key in matchLabels) if (labelValue(labels, key) !== matchLabels[key]) return false;
  return true;
}

/**
 * A label's value, or the empty string when the object lacks the label. Only the object's own keys
 * count: `toString` is a valid label key, and a pod without it has no such label.
 */
export function labelValue(labels: MatchLabels, key: string): string {
  return Object.hasOwn(labels, key) ? (labels[key] ?? '') : '';
}

/**
 * What is known of an object's labels. `complete` is false when only some of them are known (the
 * doctor could not read its labels file, or its namespace): a requirement on a key that is not among
 * the known labels then cannot be decided.
 */
export interface KnownLabels {
  readonly labels: Readonly<Record<string, string>>;
  readonly complete: boolean;
}

/** A three-valued match: decided either way, or not decidable from what is known. */
export type Verdict = 'yes' | 'no' | 'unknown';

/** The outcome of matching a selector: the verdict, and the requirements that failed or were undecidable. */
export interface SelectorMatch {
  readonly verdict: Verdict;
  /** Requirements the labels do not meet, each with what the labels hold instead. */
  readonly unmet: readonly string[];
  /** Requirements on keys whose value is not known. */
  readonly undecided: readonly string[];
}

/** `k=v`, `k in (a, b)`, `k notin (a)`, `k`, `!k`: the kubectl way of writing a requirement. */
export function describeRequirement(r: SelectorRequirement): string {
  switch (r.operator) {
    case 'In':
      return `${r.key} in (${r.values.join(', ')})`;
    case 'NotIn':
      return `${r.key} notin (${r.values.join(', ')})`;
    case 'Exists':
      return r.key;
    case 'DoesNotExist':
      return `!${r.key}`;
    default:
      return `${r.key} ${r.operator} (${r.values.join(', ')})`;
  }
}

/** Every requirement of a selector (a `matchLabels` pair is `key In (value)`), with how to write it. */
function requirementsOf(selector: LabelSelector): { requirement: SelectorRequirement; text: string }[] {
  return [
    ...Object.entries(selector.matchLabels).map(([key, value]) => ({
      requirement: { key, operator: 'In', values: [value] },
      text: `${key}=${value}`,
    })),
    ...selector.matchExpressions.map((requirement) => ({ requirement, text: describeRequirement(requirement) })),
  ];
}

/** The selector in kubectl's notation; the empty selector selects everything. */
export function describeSelector(selector: LabelSelector): string {
  return requirementsOf(selector)
    .map((r) => r.text)
    .join(',');
}

/** Whether the selector selects everything (no requirement at all). */
export function isEmptySelector(selector: LabelSelector): boolean {
  return Object.keys(selector.matchLabels).length === 0 && selector.matchExpressions.length === 0;
}

function meets(r: SelectorRequirement, value: string | undefined): boolean {
  switch (r.operator) {
    case 'In':
      return value !== undefined && r.values.includes(value);
    case 'NotIn':
      return value === undefined || !r.values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    default:
      return false;
  }
}

/**
 * Matches a label selector with Kubernetes semantics (every `matchLabels` pair and every
 * `matchExpressions` requirement must hold; an unknown operator holds for nothing), deciding only
 * what the known labels allow.
 */
export function matchSelector(selector: LabelSelector, known: KnownLabels): SelectorMatch {
  const unmet: string[] = [];
  const undecided: string[] = [];
  for (const { requirement: r, text } of requirementsOf(selector)) {
    const has = Object.hasOwn(known.labels, r.key);
    const value = has ? known.labels[r.key] : undefined;
    if (!has && !known.complete && ['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(r.operator)) {
      undecided.push(text);
      continue;
    }
    if (!meets(r, value)) unmet.push(value === undefined ? `${text} (absent)` : `${text} (is ${goQuote(value)})`);
  }
  const verdict: Verdict = unmet.length > 0 ? 'no' : undecided.length > 0 ? 'unknown' : 'yes';
  return { verdict, unmet, undecided };
}
