/**
 * Pure helpers that reproduce the handful of Go formatting behaviours the upstream doctor's output
 * depends on: `%q` quoting, `time.Duration.String`, `strings.Fields` and the `encoding/json` encoder.
 * JavaScript's built-ins differ from each of them in small ways (see upstream-doctor.md §13), so the
 * renderers and the checks use these instead.
 *
 * JavaScript strings are UTF-16 and can hold lone surrogates, which have no UTF-8 encoding. Wherever
 * Go would meet invalid UTF-8 (or an invalid rune) these helpers treat a lone surrogate the way Go
 * treats an invalid rune: as U+FFFD.
 *
 * @module
 */

const HEX = '0123456789abcdef';

/** `n` as `width` lower-case hex digits. */
function hex(n: number, width: number): string {
  let out = '';
  for (let shift = (width - 1) * 4; shift >= 0; shift -= 4) out += HEX[(n >>> shift) & 0xf];
  return out;
}

/** True for a UTF-16 surrogate code point, which only occurs in a JS string when it is unpaired. */
function isSurrogate(cp: number): boolean {
  return cp >= 0xd800 && cp <= 0xdfff;
}

/** Go `unicode.IsPrint`: categories L, M, N, P, S, plus ASCII space (other spaces are not printable). */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** The named single-character escapes of Go `%q`. */
const QUOTE_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/**
 * Go `%q` of a string (`strconv.Quote`): the string in double quotes, with `\"` and `\\` escaped,
 * `\a \b \f \n \r \t \v` in their short forms, other C0 controls and DEL as `\xNN`, and every other
 * rune that Go's `unicode.IsPrint` rejects as `\uNNNN` (BMP) or `\UNNNNNNNN` (above the BMP).
 * Printable non-ASCII (é, —, emoji) stays raw. A lone surrogate is written `\ufffd`, as Go does
 * for an invalid rune.
 *
 * The printable set comes from the Unicode tables of the JS engine, which may be a newer Unicode
 * version than Go's; only code points assigned in between can differ.
 *
 * @example goQuote('a\tb') === '"a\\tb"'; goQuote('\u00a0') === '"\\u00a0"'
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const named = QUOTE_ESCAPES[ch];
    if (named !== undefined) {
      out += named;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (isSurrogate(cp)) out += '\\ufffd';
    else if (GO_PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + '"';
}

/**
 * Go `%q` of a `[]string`: each element quoted with {@link goQuote}, separated by single spaces,
 * inside square brackets (`["a" "b"]`; `[]` when empty).
 */
export function goQuoteList(xs: readonly string[]): string {
  return `[${xs.map(goQuote).join(' ')}]`;
}

/**
 * `ms` rounded to whole seconds, halves away from zero (Go `Duration.Round(time.Second)`), still in
 * milliseconds. Never returns `-0`.
 *
 * @throws RangeError when `ms` is not a finite number.
 */
export function roundToSecondMs(ms: number): number {
  if (!Number.isFinite(ms)) throw new RangeError(`duration must be finite, got ${ms}`);
  const seconds = Math.round(Math.abs(ms) / 1000);
  return seconds === 0 ? 0 : Math.sign(ms) * seconds * 1000;
}

/**
 * Go `time.Duration.String` of a duration first rounded to whole seconds ({@link roundToSecondMs}):
 * `0s`, `5s`, `2m0s`, `1h2m3s`; hours are not folded into days; negative durations carry a leading `-`.
 *
 * @param ms the duration in milliseconds (may be fractional or negative).
 * @throws RangeError when `ms` is not a finite number.
 */
export function goDuration(ms: number): string {
  const rounded = roundToSecondMs(ms);
  if (rounded === 0) return '0s';
  const total = Math.abs(rounded) / 1000;
  const sign = rounded < 0 ? '-' : '';
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

/**
 * Go `strings.Fields`: `s` split around runs of Unicode White_Space (ASCII `\t \n \v \f \r` and space,
 * U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), with no empty fields.
 * Unlike JS `\s`, U+FEFF is not a separator; U+200B is not one either.
 */
export function goFields(s: string): string[] {
  return s.split(/\p{White_Space}+/u).filter((field) => field !== '');
}

/** Go `strings.TrimSpace`: leading and trailing Unicode White_Space removed (U+FEFF is kept). */
export function goTrimSpace(s: string): string {
  return s.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, '');
}

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

/**
 * A JSON string literal as Go's `encoding/json` writes it (HTML escaping on, the default): `<`, `>`,
 * `&` as `\u003c \u003e \u0026`; U+2028/U+2029 as `\u2028 \u2029`; `\b \f \n \r \t` short; other
 * control characters as `\u00XX` (lower-case hex); a lone surrogate as `\ufffd`; `/`, DEL and other
 * non-ASCII raw.
 */
export function goJsonString(s: string): string {
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
export type GoJsonValue =
  | null
  | boolean
  | number
  | string
  | readonly GoJsonValue[]
  | { readonly [key: string]: GoJsonValue | undefined };

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
 *
 * @throws RangeError for a non-finite number (Go's encoder refuses NaN and ±Inf).
 */
export function goJson(value: GoJsonValue, indent = '  '): string {
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
    const members = Object.entries(v).filter(
      (entry): entry is [string, GoJsonValue] => entry[1] !== undefined,
    );
    if (members.length === 0) return '{}';
    return `{${open}${members.map(([k, item]) => `${goJsonString(k)}${colon}${write(item, inner)}`).join(sep)}${close}}`;
  };
  return write(value, '');
}

/** `Array.isArray` narrowed for readonly arrays. */
function isArray(v: unknown): v is readonly GoJsonValue[] {
  return Array.isArray(v);
}
