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
 * exact as bigints; the slower reviver runs only for a text that holds such a long digit run at all
 * (`longInteger`, when the caller already knows).
 */
export function parseApiJson(text: string, longInteger = LONG_INTEGER.test(text)): unknown {
  if (!longInteger) return JSON.parse(text);
  return JSON.parse(text, exactIntegers as Parameters<typeof JSON.parse>[1]);
}
