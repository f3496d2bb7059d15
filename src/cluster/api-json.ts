/**
 * How the doctor parses what the API server sends: plain `JSON.parse`, except that integers beyond
 * 2^53 stay exact.
 *
 * @module
 */

/**
 * A number of 16 digits or more (more than any integer a double holds exactly: 2^53 has 16): where a
 * JSON number may begin (at the start, or after `:`, `,` or `[`), then the digits. Matching only there is
 * twice as fast as any digit run, which timestamps, addresses and image digests make common; a match in
 * a string (rare) only costs the slower exact parse.
 */
const LONG_INTEGER = /(?:^|[:,[])\s*-?\d{16}/;

type Reviver = (this: unknown, key: string, value: unknown, context: { readonly source?: string }) => unknown;

/** Keeps an integer beyond 2^53 exact, as a bigint from its source text (Node 24's JSON.parse passes it). */
const exactIntegers: Reviver = (_key, value, context) => {
  if (typeof value !== 'number' || Number.isSafeInteger(value) || context.source === undefined) return value;
  return /^-?\d+$/.test(context.source) ? BigInt(context.source) : value;
};

/**
 * Parses an API answer. Integers beyond 2^53 (an int64 such as a CacheTenant's `indexEntries`) stay
 * exact as bigints; the slower reviver runs only for a text that holds such a long number at all.
 */
export function parseApiJson(text: string): unknown {
  if (!LONG_INTEGER.test(text)) return JSON.parse(text);
  return JSON.parse(text, exactIntegers as Parameters<typeof JSON.parse>[1]);
}

/** Where an object's `managedFields` member begins: a key follows a `,` outside strings. */
const MANAGED_FIELDS = ',"managedFields":[';

/**
 * A list element's text without its `metadata.managedFields` member, which no check reads and which
 * is a third to a half of a Kubernetes object's text (parsing it was the largest part of reading a
 * list). Removed only when provably whole:
 *
 * - `next` is the key the API server writes right after `metadata` for this Kind (`spec` for a Pod):
 *   it writes a built-in Kind's fields in their Go order, where `managedFields` is the last field of
 *   `metadata`, so the member is followed by `]},"<next>":`. There the quote is followed by a letter,
 *   so it opens a key rather than closing a string, and the `]` before it stands outside strings.
 * - A managedFields entry holds strings and objects, never arrays, so the member's own `]` is the
 *   first one outside strings after its `[`. The member is removed only when no `]` at all stands
 *   between its `[` and that structural one, which then must be its end.
 *
 * Otherwise (another layout, a `]` in a string) the text is returned as it is. Removing one whole
 * member keeps valid JSON valid and invalid JSON invalid, and every other value as it was.
 */
export function withoutManagedFields(text: string, next: string): string {
  const start = text.indexOf(MANAGED_FIELDS);
  if (start < 0) return text;
  const open = start + MANAGED_FIELDS.length;
  const end = text.indexOf(`]},"${next}":`, open);
  if (end < 0 || text.indexOf(']', open) !== end) return text;
  return text.slice(0, start) + text.slice(end + 1);
}
