import { MAX_MESSAGE_CHARS, MAX_QUOTED_CHARS, cutMessage, cutText } from '../../../src/go/cut.ts';
import { describe, expect, it } from 'vitest';
import { goQuote, goQuoteList, goUnquote } from '../../../src/go/quote.ts';

// Expected values are what Go prints; String.raw keeps backslashes literal.
describe('goQuote (Go %q / strconv.Quote)', () => {
  it.each<[string, string, string]>([
    ['empty', '', '""'],
    ['plain ASCII', 'hello world', '"hello world"'],
    ['double quote and backslash', 'a"b\\c', String.raw`"a\"b\\c"`],
    ['single quote stays raw', "it's", `"it's"`],
    ['named escapes', '\x07\b\f\n\r\t\v', String.raw`"\a\b\f\n\r\t\v"`],
    ['NUL and other C0 as \\xNN', '\x00\x01\x1b\x1f', String.raw`"\x00\x01\x1b\x1f"`],
    ['DEL as \\x7f', '\x7f', String.raw`"\x7f"`],
    ['C1 control as \\u0085', '\u0085', String.raw`"\u0085"`],
    ['no-break space is not printable', 'a\u00a0b', String.raw`"a\u00a0b"`],
    ['soft hyphen (Cf) escaped', '\u00ad', String.raw`"\u00ad"`],
    ['line separator escaped', '\u2028\u2029', String.raw`"\u2028\u2029"`],
    ['zero-width space escaped', '\u200b', String.raw`"\u200b"`],
    ['BOM escaped', '\ufeff', String.raw`"\ufeff"`],
    ['ideographic space escaped', '\u3000', String.raw`"\u3000"`],
    ['é raw', 'café', '"café"'],
    ['em dash raw', 'a — b', '"a — b"'],
    ['CJK raw', '日本', '"日本"'],
    ['combining mark raw', 'e\u0301', '"e\u0301"'],
    ['emoji raw', 'ok 🙂', '"ok 🙂"'],
    ['non-printable above BMP as \\U', '\u{e0001}', String.raw`"\U000e0001"`],
    ['private use above BMP as \\U', '\u{f0000}', String.raw`"\U000f0000"`],
    ['private use BMP as \\u', '\ue000', String.raw`"\ue000"`],
    ['lone high surrogate', 'a\ud800b', String.raw`"a\ufffdb"`],
    ['lone low surrogate', '\udc00', String.raw`"\ufffd"`],
    ['U+FFFD itself is printable', '\ufffd', '"\ufffd"'],
    ['HTML characters raw', '<a&b>', '"<a&b>"'],
  ])('%s', (_name, input, want) => {
    expect(goQuote(input)).toBe(want);
  });

  it('writes every ASCII character as Go does, alone and amid plain text', () => {
    const named: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };
    const go = (c: number) =>
      c === 0x22 || c === 0x5c
        ? `\\${String.fromCharCode(c)}`
        : named[c] !== undefined
          ? `\\${named[c]}`
          : c < 0x20 || c === 0x7f
            ? `\\x${c.toString(16).padStart(2, '0')}`
            : String.fromCharCode(c);
    for (let c = 0; c < 0x80; c++) {
      expect(goQuote(String.fromCharCode(c)), `U+${c}`).toBe(`"${go(c)}"`);
      expect(goQuote(`be-${String.fromCharCode(c)}-1`), `U+${c}`).toBe(`"be-${go(c)}-1"`);
    }
  });
});

describe('goQuoteList (Go %q of []string)', () => {
  it.each<[readonly string[], string]>([
    [[], '[]'],
    [['a'], '["a"]'],
    [['a', 'b'], '["a" "b"]'],
    [['', 'x y'], '["" "x y"]'],
    [['tab\there'], String.raw`["tab\there"]`],
  ])('%j', (input, want) => {
    expect(goQuoteList(input)).toBe(want);
  });
});

describe('goUnquote (Go strconv.Unquote of a double-quoted string)', () => {
  it.each<[string, string]>([
    [String.raw`""`, ''],
    [String.raw`"plain"`, 'plain'],
    [String.raw`"say \"hi\"\tand\\more"`, 'say "hi"\tand\\more'],
    [String.raw`"\a\b\f\n\r\v\'"`, "\x07\b\f\n\r\v'"],
    [String.raw`"caf\u00e9 \U0001f600"`, 'café 😀'],
    [String.raw`"\xc3\xa9 \303\251"`, 'é é'],
    ['"naïve"', 'naïve'],
  ])('%s', (quoted, want) => {
    expect(goUnquote(quoted)).toBe(want);
  });

  it.each(['', '"', 'x', '"a"b"', '"\\q"', '"\\x1"', '"\\uD800"', '"\\400"', '"trailing\\"'])('%j is not a Go-quoted string', (text) => {
    expect(goUnquote(text)).toBeUndefined();
  });

  it.each(['', 'tab\there', 'quote " and \\', '\x01\x7f é 🙂 \u00a0 \u2028'])('undoes goQuote(%j)', (text) => {
    expect(goUnquote(goQuote(text))).toBe(text);
  });
});

describe('a string too long to quote whole: cut, the cut marked', () => {
  it('quotes the first 2,048 characters (code points, never half a pair) and says how many were left out', () => {
    const long = `${'é'.repeat(2047)}😀${'x'.repeat(3000)}`;
    expect(goQuote(long)).toBe(`"${'é'.repeat(2047)}😀"…[cut: 3000 more characters]`);
    expect(goQuote('x'.repeat(MAX_QUOTED_CHARS))).toBe(`"${'x'.repeat(MAX_QUOTED_CHARS)}"`);
  });
  it('a text cut where it entered is quoted as it is, not cut again', () => {
    const entered = cutText('z'.repeat(5000));
    expect(entered).toBe(`${'z'.repeat(MAX_QUOTED_CHARS)}…[cut: ${5000 - MAX_QUOTED_CHARS} more characters]`);
    expect(goQuote(entered)).toBe(`"${entered}"`);
    expect(cutText('short')).toBe('short');
  });
  it('a finding message is at most 8,192 characters, whatever it quotes', () => {
    const message = cutMessage(`a: ${'y'.repeat(20_000)}`);
    expect(message).toBe(`a: ${'y'.repeat(MAX_MESSAGE_CHARS - 3)}…[cut: ${20_003 - MAX_MESSAGE_CHARS} more characters]`);
    expect(cutMessage('short')).toBe('short');
  });
});
