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

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/**
 * Whether `text` holds a run of 16 digits or more anywhere, strings included: what {@link LONG_INTEGER}
 * needs to match at all. It looks at every 16th character only (a run of 16 covers one of them) and
 * around those that are digits, which is several times faster than the regular expression, whose
 * search stops at every `:` and `,`.
 */
function hasLongDigitRun(text: string): boolean {
  const n = text.length;
  for (let i = 15; i < n; i += 16) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let first = i;
    while (first > 0 && isDigit(text.charCodeAt(first - 1))) first--;
    let end = i + 1;
    while (end < n && isDigit(text.charCodeAt(end))) end++;
    if (end - first >= 16) return true;
  }
  return false;
}

/**
 * Parses an API answer. Integers beyond 2^53 (an int64 such as a CacheTenant's `indexEntries`) stay
 * exact as bigints; the slower reviver runs only for a text that holds such a long number at all.
 */
export function parseApiJson(text: string): unknown {
  if (!hasLongDigitRun(text) || !LONG_INTEGER.test(text)) return JSON.parse(text);
  return JSON.parse(text, exactIntegers as Parameters<typeof JSON.parse>[1]);
}

/** Where an object's `managedFields` member begins: a key follows a `,` outside strings. */
const MANAGED_FIELDS = ',"managedFields":[';

/**
 * A JSON string as an API server writes one in a managedFields entry: no control character, only
 * valid escapes, and no `]`. The pattern is unrolled (a run of plain characters, then escapes each
 * followed by such a run) so that the regular expression engine never backtracks through it.
 */
const STRING = String.raw`"[^"\\\]\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[\dA-Fa-f]{4})[^"\\\]\x00-\x1f]*)*"`;

/**
 * How deeply the objects of one managedFields entry may nest for it to be recognised: its `fieldsV1`
 * mirrors the paths of the fields its manager set, which are seldom ten deep.
 */
const ENTRY_DEPTH = 24;

/** An object whose member values match `value`: members separated by single commas, none after the last. */
function objectOf(value: string): string {
  return String.raw`\{(?:${STRING}:(?:${value})(?:,(?=")|(?=\})))*\}`;
}

/**
 * A managedFields array as an API server writes it: objects whose values are strings or objects, to
 * {@link ENTRY_DEPTH}, without a space. Matching it is reading every character of the member, as a
 * parse would, but without building its objects.
 */
const MANAGED_ARRAY = (() => {
  let value = STRING;
  for (let depth = 1; depth < ENTRY_DEPTH; depth++) value = `${STRING}|${objectOf(value)}`;
  const entry = objectOf(value);
  return String.raw`\[(?:${entry}(?:,(?=\{)|(?=\])))*\]`;
})();

/** The sticky expression that matches a managedFields array followed by `},"<next>":`, by `next`. */
const managedArrays = new Map<string, RegExp>();

function managedArrayBefore(next: string): RegExp {
  let re = managedArrays.get(next);
  if (re === undefined) {
    re = new RegExp(String.raw`${MANAGED_ARRAY}(?=\},"${next.replace(/[^A-Za-z0-9]/g, '\\$&')}":)`, 'y');
    managedArrays.set(next, re);
  }
  return re;
}

/** Whether `c` may be the last character of a JSON value: a quote, a closing bracket or brace, a digit, or the last letter of `true`, `false` or `null`. */
function endsAValue(c: number): boolean {
  return c === 0x22 || c === 0x5d || c === 0x7d || (c >= 0x30 && c <= 0x39) || c === 0x65 || c === 0x6c;
}

/**
 * A list element's text without its `metadata.managedFields` member, which no check reads and which
 * is a third to a half of a Kubernetes object's text (parsing it was the largest part of reading a
 * list). Removed only when the member is provably whole and valid, so that the text left is JSON
 * exactly when the element's text is, and parses to the same value but for that member:
 *
 * - `next` is the key the API server writes right after `metadata` for this Kind (`spec` for a Pod):
 *   it writes a built-in Kind's fields in their Go order, where `managedFields` is the last field of
 *   `metadata`, so the member is followed by `]},"<next>":`.
 * - The member's value is read whole, character by character, by a regular expression: an array of
 *   objects holding strings and objects (see `MANAGED_ARRAY`), which is what an API server writes. So
 *   the `]` it ends at is its own, and bytes that are not JSON there are never removed.
 * - The `,` before it follows the end of a value: a member (`{,"managedFields":[]}` is not JSON).
 *
 * Then the text without the member parses exactly when the element does: the member sits between the
 * last value of an object and its `}`. Otherwise (another layout, a value of another shape, a space, a
 * `]` in a string, JSON that is not valid) the text is returned as it is, and the full parse decides.
 */
export function withoutManagedFields(text: string, next: string): string {
  const start = text.indexOf(MANAGED_FIELDS);
  if (start < 1 || !endsAValue(text.charCodeAt(start - 1))) return text;
  const array = managedArrayBefore(next);
  array.lastIndex = start + MANAGED_FIELDS.length - 1;
  let whole: boolean;
  try {
    whole = array.test(text);
  } catch {
    // The engine ran out of backtracking stack on a member of a size no API server writes.
    return text;
  }
  return whole ? text.slice(0, start) + text.slice(array.lastIndex) : text;
}
