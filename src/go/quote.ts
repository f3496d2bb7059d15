/**
 * Go string quoting: `%q` (`strconv.Quote`) and its inverse (`strconv.Unquote` for double-quoted
 * strings). The upstream doctor quotes names in its messages with `%q`, and the kubelet writes label
 * values in the downward-API labels file the same way, so both directions are needed.
 *
 * JavaScript strings are UTF-16 and can hold lone surrogates, which have no UTF-8 encoding. Where Go
 * would meet an invalid rune, a lone surrogate is treated the same way: as U+FFFD.
 *
 * @module
 */

import { hex, isSurrogate } from './runes.ts';
import { MAX_QUOTED_CHARS, cutMark, cutTo, isCutText } from './cut.ts';

/** Go `unicode.IsPrint`: categories L, M, N, P, S, plus ASCII space (other spaces are not printable). */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Printable ASCII but `"` and `\`: written as it is (most names are; the loop below is for the rest). */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

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
 * Go `%q` of a string: the string in double quotes, with `\"` and `\\` escaped, `\a \b \f \n \r \t \v`
 * in their short forms, other C0 controls and DEL as `\xNN`, and every other rune that Go's
 * `unicode.IsPrint` rejects as `\uNNNN` (BMP) or `\UNNNNNNNN` (above the BMP). Printable non-ASCII
 * (é, —, emoji) stays raw. A lone surrogate is written `\ufffd`, as Go does for an invalid rune. A
 * string of more than `MAX_QUOTED_CHARS` code points is quoted cut, `…[cut: N more characters]` after
 * the quote (`text/cut.ts`): the one way in which it is not `%q`.
 *
 * The printable set comes from the Unicode tables of the JS engine, which may be a newer Unicode
 * version than Go's; only code points assigned in between can differ.
 *
 * @example goQuote('a\tb') === '"a\\tb"'; goQuote('\u00a0') === '"\\u00a0"'
 */
export function goQuote(whole: string): string {
  // Unlike %q, a string longer than the doctor quotes is cut, the cut marked after the closing quote.
  const { kept: s, dropped } = isCutText(whole) ? { kept: whole, dropped: 0 } : cutTo(whole, MAX_QUOTED_CHARS);
  if (dropped > 0) return `${goQuote(s)}${cutMark(dropped)}`;
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
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

/** The byte values of the single-character escapes `strconv.Unquote` accepts in a double-quoted string. */
const UNQUOTE_ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '"': 34, "'": 39 };

const utf8 = new TextEncoder();

/**
 * Go `strconv.Unquote` of a double-quoted string: the escapes `\a \b \f \n \r \t \v \\ \" \'`, `\xNN`
 * and three-digit octal (raw bytes), `\uNNNN` and `\UNNNNNNNN` (code points; surrogates and values
 * above U+10FFFF refused). The bytes are decoded as UTF-8 at the end, so `\xc3\xa9` is `é`.
 * Undefined when the text is not a well-formed quoted string.
 */
export function goUnquote(quoted: string): string | undefined {
  if (quoted.length < 2 || !quoted.startsWith('"') || !quoted.endsWith('"')) return undefined;
  const body = quoted.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length;) {
    const c = body[i] ?? '';
    if (c === '"') return undefined;
    if (c !== '\\') {
      const ch = String.fromCodePoint(body.codePointAt(i) ?? 0);
      bytes.push(...utf8.encode(ch));
      i += ch.length;
      continue;
    }
    const escape = body[i + 1];
    if (escape === undefined) return undefined;
    const simple = UNQUOTE_ESCAPES[escape];
    if (simple !== undefined) {
      bytes.push(simple);
      i += 2;
    } else if (escape === 'x' || escape === 'u' || escape === 'U') {
      const width = escape === 'x' ? 2 : escape === 'u' ? 4 : 8;
      const digits = body.slice(i + 2, i + 2 + width);
      if (digits.length !== width || !/^[0-9a-fA-F]+$/.test(digits)) return undefined;
      const n = Number.parseInt(digits, 16);
      if (escape === 'x') bytes.push(n);
      else if (n > 0x10ffff || isSurrogate(n)) return undefined;
      else bytes.push(...utf8.encode(String.fromCodePoint(n)));
      i += 2 + width;
    } else if (/[0-7]/.test(escape)) {
      const digits = body.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(digits)) return undefined;
      const n = Number.parseInt(digits, 8);
      if (n > 255) return undefined;
      bytes.push(n);
      i += 4;
    } else {
      return undefined;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
