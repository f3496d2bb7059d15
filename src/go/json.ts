/**
 * Go's `encoding/json` encoder, as the upstream doctor's JSON report is written by it: HTML-safe string
 * escaping (`\u003c \u003e \u0026`), U+2028/U+2029 escaped, members in insertion order, two-space
 * indentation from `json.MarshalIndent`. `JSON.stringify` differs in each of these.
 *
 * @module
 */

import { hex, isSurrogate } from './runes.ts';

/** Short JSON escapes of Go's encoder (`\b` and `\f` since Go 1.22). */
const JSON_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** A string with nothing to escape, written as it is (most are; the loop below is for the rest). */
// eslint-disable-next-line no-control-regex -- the control characters are what the class excludes
const PLAIN_JSON = /^[^"\\<>&\u0000-\u001f\u2028\u2029\ud800-\udfff]*$/;

/**
 * A JSON string literal as Go's `encoding/json` writes it (HTML escaping on, the default): `<`, `>`,
 * `&` as `\u003c \u003e \u0026`; U+2028/U+2029 as `\u2028 \u2029`; `\b \f \n \r \t` short; other
 * control characters as `\u00XX` (lower-case hex); a lone surrogate as `\ufffd`; `/`, DEL and other
 * non-ASCII raw.
 */
export function goJsonString(s: string): string {
  if (PLAIN_JSON.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const named = JSON_ESCAPES[ch];
    if (named !== undefined) {
      out += named;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20) out += `\\u${hex(cp, 4)}`;
    else if (isSurrogate(cp)) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

/** The values {@link goJson} can encode: JSON data, with `undefined` object members left out. */
export type GoJsonValue = null | boolean | number | string | readonly GoJsonValue[] | { readonly [key: string]: GoJsonValue | undefined };

/** A number as Go writes a float64 (shortest round-trip form; same switch to exponents as JS). */
function goJsonNumber(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`json: unsupported value: ${n}`);
  return Object.is(n, -0) ? '-0' : String(n);
}

/**
 * Serialises `value` like Go's `json.MarshalIndent(value, "", indent)`: members in insertion order,
 * `"key": value`, empty arrays and objects as `[]` / `{}`, strings per {@link goJsonString}. Object
 * members whose value is `undefined` are omitted (the `omitempty` of the caller's choosing).
 * No trailing newline. With `indent` `''` the output is compact, like `json.Marshal`.
 * `depth` is the indentation the value starts at, for a value written inside a larger document.
 *
 * @throws RangeError for a non-finite number (Go's encoder refuses NaN and ±Inf).
 */
export function goJson(value: GoJsonValue, indent = '  ', depth = ''): string {
  const colon = indent === '' ? ':' : ': ';
  const write = (v: GoJsonValue, depth: string): string => {
    if (v === null) return 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') return goJsonNumber(v);
    if (typeof v === 'string') return goJsonString(v);
    const inner = depth + indent;
    const open = indent === '' ? '' : `\n${inner}`;
    const sep = indent === '' ? ',' : `,\n${inner}`;
    const close = indent === '' ? '' : `\n${depth}`;
    if (isArray(v)) {
      if (v.length === 0) return '[]';
      return `[${open}${v.map((item) => write(item, inner)).join(sep)}${close}]`;
    }
    const members = Object.entries(v).filter((entry): entry is [string, GoJsonValue] => entry[1] !== undefined);
    if (members.length === 0) return '{}';
    return `{${open}${members.map(([k, item]) => `${goJsonString(k)}${colon}${write(item, inner)}`).join(sep)}${close}}`;
  };
  return write(value, depth);
}

/** `Array.isArray` narrowed for readonly arrays. */
function isArray(v: unknown): v is readonly GoJsonValue[] {
  return Array.isArray(v);
}
