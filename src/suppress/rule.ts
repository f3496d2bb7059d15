/**
 * Suppression rules: what silences which findings, from wherever the rule was written (`--suppress`,
 * the `--suppress-file`, or an annotation on the object a finding is about). Pure: parsing and
 * matching only; reading the file is the caller's.
 *
 * @module
 */

import { parseRfc3339 } from '../go/rfc3339.ts';
import { isCodeShaped } from '../report/code-shape.ts';
import type { Finding, SuppressionRef } from '../report/finding.ts';
import { namespaceOf } from '../report/resource-namespace.ts';
import { GlobMatcher } from './glob.ts';

/**
 * Which findings of its code a rule matches: all of them, those whose resource matches a glob, those
 * about one object (an annotation on it), or those about anything in one namespace (an annotation on
 * the Namespace).
 */
export type RuleScope =
  | { readonly kind: 'any' }
  | { readonly kind: 'glob'; readonly pattern: GlobMatcher }
  | { readonly kind: 'resource'; readonly resource: string }
  | { readonly kind: 'namespace'; readonly namespace: string };

/** One rule: one code, its scope, and when it stops suppressing. */
export interface SuppressionRule {
  readonly code: string;
  readonly scope: RuleScope;
  /** How the report names the rule. */
  readonly ref: SuppressionRef;
  /**
   * Where the rule is written, as the resource of the Suppressions stage's findings about it:
   * `--suppress CODE=GLOB`, `<file>:<line>`, or the annotated object (`cachebackend/prod/a`).
   */
  readonly location: string;
  /** The instant (ms since the epoch) from which the rule no longer suppresses; absent: never. */
  readonly expiresAt?: number;
}

/** A rule that cannot be used, named where it was written: a usage error for the flag and the file. */
export class RuleError extends Error {
  override readonly name = 'RuleError';
}

/**
 * The longest resource glob a rule may have. No resource is longer (the longest is a kind, a namespace
 * and an object name: a few hundred characters), and a longer glob would only make every match cost
 * more: matching takes time in proportion to the glob's length.
 */
export const MAX_GLOB_LENGTH = 1024;

/** Why a resource glob cannot be used, or undefined when it can. */
export function globProblem(glob: string): string | undefined {
  if (glob === '') return 'the resource glob is empty';
  if (glob.length > MAX_GLOB_LENGTH)
    return `the resource glob is ${glob.length} characters long, more than any resource (at most ${MAX_GLOB_LENGTH})`;
  return undefined;
}

/**
 * A rule's resource glob, compiled once for every finding the rule meets: `*` any run of characters
 * (`/` included), `?` one character (one code point), everything else itself. Matching takes time
 * bounded by the lengths of the glob and the resource, however either is written (see
 * {@link GlobMatcher}).
 */
export function globPattern(glob: string): GlobMatcher {
  return new GlobMatcher(glob);
}

/**
 * When a written `expires` stops a rule: a date (`2027-01-31`) at the end of that day in UTC, so
 * the rule still suppresses on the day it names; an RFC 3339 time (`2027-01-31T12:00:00Z`) at
 * that instant.
 *
 * @throws RuleError when the text is neither.
 */
export function expiryOf(text: string): number {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (date !== null) {
    const [, y, m, d] = date.map(Number) as [number, number, number, number];
    const start = Date.UTC(y, m - 1, d);
    const back = new Date(start);
    if (back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d) return start + 86_400_000;
  } else {
    const at = parseRfc3339(text);
    if (at !== undefined) return at;
  }
  throw new RuleError(`expires ${JSON.stringify(text)} is not a date (2027-01-31) or an RFC 3339 time (2027-01-31T12:00:00Z)`);
}

/**
 * One `--suppress` value: `CODE` (every finding of the code) or `CODE=RESOURCE-GLOB`.
 *
 * @throws RuleError for a value without a code-shaped code or with an empty glob.
 */
export function parseSuppressFlag(text: string): SuppressionRule {
  const at = text.indexOf('=');
  const code = at < 0 ? text : text.slice(0, at);
  const glob = at < 0 ? undefined : text.slice(at + 1);
  if (!isCodeShaped(code))
    throw new RuleError(`invalid --suppress ${JSON.stringify(text)}: want CODE or CODE=RESOURCE-GLOB, e.g. CT001=cachetenant/prod/*`);
  if (glob === '') throw new RuleError(`invalid --suppress ${JSON.stringify(text)}: the resource glob after '=' is empty`);
  const problem = glob === undefined ? undefined : globProblem(glob);
  if (problem !== undefined) throw new RuleError(`invalid --suppress ${JSON.stringify(text.slice(0, 64))}…: ${problem}`);
  return {
    code,
    scope: glob === undefined ? { kind: 'any' } : { kind: 'glob', pattern: globPattern(glob) },
    ref: { source: '--suppress', match: text },
    location: `--suppress ${text}`,
  };
}

/** Whether `rule` matches `finding` (its code is assumed equal). */
export function scopeMatches(scope: RuleScope, finding: Finding): boolean {
  switch (scope.kind) {
    case 'any':
      return true;
    case 'glob':
      return scope.pattern.test(finding.resource ?? '');
    case 'resource':
      return finding.resource === scope.resource;
    case 'namespace':
      return namespaceOf(finding.resource) === scope.namespace;
  }
}
