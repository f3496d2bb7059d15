import { describe, expect, it } from 'vitest';
import {
  goDuration,
  goFields,
  goJson,
  goJsonString,
  goQuote,
  goQuoteList,
  roundToSecondMs,
} from '../../src/report/gofmt.ts';

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

describe('goDuration (Go Duration.String after Round(time.Second))', () => {
  it.each<[number, string]>([
    [0, '0s'],
    [-0, '0s'],
    [1, '0s'],
    [499, '0s'],
    [-499, '0s'],
    [500, '1s'],
    [1_500, '2s'],
    [2_500, '3s'],
    [-1_500, '-2s'],
    [-500, '-1s'],
    [5_000, '5s'],
    [59_499, '59s'],
    [59_500, '1m0s'],
    [60_000, '1m0s'],
    [120_400, '2m0s'],
    [600_000, '10m0s'],
    [3_599_000, '59m59s'],
    [3_600_000, '1h0m0s'],
    [3_723_000, '1h2m3s'],
    [-3_723_000, '-1h2m3s'],
    [90_000_000, '25h0m0s'],
    [86_400_000 * 400, '9600h0m0s'],
  ])('%d ms → %s', (ms, want) => {
    expect(goDuration(ms)).toBe(want);
  });

  it.each<[number, number]>([
    [0, 0],
    [-400, 0],
    [1_499.9, 1_000],
    [1_500, 2_000],
    [-1_500, -2_000],
    [120_400, 120_000],
  ])('roundToSecondMs(%d) = %d', (ms, want) => {
    expect(Object.is(roundToSecondMs(ms), want)).toBe(true);
  });

  it('refuses non-finite durations', () => {
    expect(() => goDuration(Number.NaN)).toThrow(RangeError);
    expect(() => roundToSecondMs(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('goFields (Go strings.Fields)', () => {
  it.each<[string, string, string[]]>([
    ['empty', '', []],
    ['only spaces', ' \t\n ', []],
    ['single word', 'word', ['word']],
    ['leading, trailing and inner runs', '  a  b\t\tc\n', ['a', 'b', 'c']],
    ['\\v \\f \\r', 'a\vb\fc\rd', ['a', 'b', 'c', 'd']],
    ['U+0085 NEL separates', 'a\u0085b', ['a', 'b']],
    ['U+00A0 separates', 'a\u00a0b', ['a', 'b']],
    ['U+1680 separates', 'a\u1680b', ['a', 'b']],
    ['U+2000..U+200A separate', 'a\u2000b\u200ac', ['a', 'b', 'c']],
    ['U+2028/U+2029 separate', 'a\u2028b\u2029c', ['a', 'b', 'c']],
    ['U+202F U+205F U+3000 separate', 'a\u202fb\u205fc\u3000d', ['a', 'b', 'c', 'd']],
    ['U+FEFF does not separate', 'a\ufeffb', ['a\ufeffb']],
    ['U+200B does not separate', 'a\u200bb', ['a\u200bb']],
    ['U+180E does not separate', 'a\u180eb', ['a\u180eb']],
    ['leading BOM kept', '\ufeff x', ['\ufeff', 'x']],
    ['non-ASCII words kept whole', 'café  —  🙂', ['café', '—', '🙂']],
  ])('%s', (_name, input, want) => {
    expect(goFields(input)).toStrictEqual(want);
  });
});

describe('goJsonString (Go encoding/json, HTML-safe)', () => {
  it.each<[string, string, string]>([
    ['empty', '', '""'],
    ['plain', 'abc', '"abc"'],
    ['quote and backslash', 'a"b\\c', String.raw`"a\"b\\c"`],
    ['HTML characters', '<tag> & co', String.raw`"\u003ctag\u003e \u0026 co"`],
    ['slash not escaped', 'http://h/p', '"http://h/p"'],
    ['short control escapes', '\b\f\n\r\t', String.raw`"\b\f\n\r\t"`],
    ['other controls as \\u00XX lower-case', '\x00\x01\x0b\x1b\x1f', String.raw`"\u0000\u0001\u000b\u001b\u001f"`],
    ['DEL raw', '\x7f', '"\x7f"'],
    ['line and paragraph separators', '\u2028\u2029', String.raw`"\u2028\u2029"`],
    ['non-ASCII raw', 'é — 🙂 \u00a0 \u0085', '"é — 🙂 \u00a0 \u0085"'],
    ['lone surrogates', '\ud83d-\ude42', String.raw`"\ufffd-\ufffd"`],
  ])('%s', (_name, input, want) => {
    expect(goJsonString(input)).toBe(want);
  });
});

describe('goJson (Go json.MarshalIndent)', () => {
  it('indents nested objects and arrays with two spaces, "key": value', () => {
    const got = goJson({ a: 1, b: [true, null, 'x'], c: { d: -2.5 }, e: [], f: {} });
    expect(got).toBe(
      [
        '{',
        '  "a": 1,',
        '  "b": [',
        '    true,',
        '    null,',
        '    "x"',
        '  ],',
        '  "c": {',
        '    "d": -2.5',
        '  },',
        '  "e": [],',
        '  "f": {}',
        '}',
      ].join('\n'),
    );
  });

  it('omits undefined members and keeps insertion order', () => {
    expect(goJson({ z: 1, skip: undefined, a: 2 }, '')).toBe('{"z":1,"a":2}');
  });

  it('compact form with an empty indent', () => {
    expect(goJson([1, [], { k: '<' }], '')).toBe(String.raw`[1,[],{"k":"\u003c"}]`);
  });

  it('escapes keys too', () => {
    expect(goJson({ '<k>': 'v' }, '')).toBe(String.raw`{"\u003ck\u003e":"v"}`);
  });

  it.each<[number, string]>([
    [0, '0'],
    [-0, '-0'],
    [42, '42'],
    [1e20, '100000000000000000000'],
    [1e21, '1e+21'],
    [0.000001, '0.000001'],
    [1e-7, '1e-7'],
  ])('number %d as %s', (n, want) => {
    expect(goJson(n)).toBe(want);
  });

  it('refuses non-finite numbers', () => {
    expect(() => goJson(Number.NaN)).toThrow(RangeError);
    expect(() => goJson({ x: Number.NEGATIVE_INFINITY })).toThrow(RangeError);
  });

  it('agrees with JSON.parse on round trip', () => {
    const value = { m: 'a<b>&c\u2028\x01\t"\\/é🙂', n: [1, 2], o: { p: null } };
    expect(JSON.parse(goJson(value))).toStrictEqual(value);
  });
});
