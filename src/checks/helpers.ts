import { goQuote } from '../go/quote.ts';
import type { CacheBackend } from '../cluster/kinds/cache-backend.ts';
import type { Condition } from '../cluster/kinds/conditions.ts';

/** The first condition of the given type, matched exactly. */
export function conditionOf(conditions: readonly Condition[], type: string): Condition | undefined {
  return conditions.find((c) => c.type === type);
}

/** Whether a backend's remote tier is the operator's (`ownership: External`) rather than the controller's. */
export function isExternal(b: Pick<CacheBackend, 'remoteStorage'>): boolean {
  return b.remoteStorage?.ownership === 'External';
}

/** A CacheBackend as findings name it. */
export function backendResource(b: Pick<CacheBackend, 'namespace' | 'name'>): string {
  return `cachebackend/${b.namespace}/${b.name}`;
}

const utf8 = new TextEncoder();

/** Compares two strings by their UTF-8 bytes, the order Go's string comparison uses. */
export function byteCompare(a: string, b: string): number {
  return Buffer.compare(utf8.encode(a), utf8.encode(b));
}

/** Milliseconds since the epoch of an RFC 3339 time, or undefined when absent or unparsable. */
export function timeOf(rfc3339: string | undefined): number | undefined {
  if (rfc3339 === undefined || rfc3339 === '') return undefined;
  const ms = Date.parse(rfc3339);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The first `max` code points of `text` when it has more, else undefined; looks at no more than that. */
function headOf(text: string, max: number): string | undefined {
  if (text.length <= max) return undefined;
  const kept: string[] = [];
  for (const ch of text) {
    if (kept.length === max) return kept.join('');
    kept.push(ch);
  }
  return undefined;
}

/** `text` cut to at most `max` code points, the last of them `…` when it was cut (never inside a surrogate pair). */
export function cutText(text: string, max: number): string {
  return headOf(text, max) === undefined ? text : `${headOf(text, max - 1) ?? ''}…`;
}

/**
 * `goQuote` of `text` cut to `max` code points: a name from the cluster can be of any length, and a
 * message names it whole only when it is short. The `…` of a cut name follows its closing quote, so
 * it cannot be read as part of the name.
 */
export function quoteCut(text: string, max: number): string {
  const head = headOf(text, max);
  return head === undefined ? goQuote(text) : `${goQuote(head)}…`;
}

/**
 * The first `shown` items, each described, joined by `separator`, then ` and N more` when there are
 * others: a message that lists what one object holds stays the same size however much it holds. Only
 * the items shown are described.
 */
export function listSome<T>(items: readonly T[], shown: number, describe: (item: T) => string, separator = ', '): string {
  const listed = items.slice(0, shown).map(describe).join(separator);
  return items.length > shown ? `${listed} and ${items.length - shown} more` : listed;
}

/** `"a", "b" and 3 more`: {@link listSome} of names, each quoted and cut to `max` code points ({@link quoteCut}). */
export function quoteSome(names: readonly string[], shown: number, max: number): string {
  return listSome(names, shown, (name) => quoteCut(name, max));
}
