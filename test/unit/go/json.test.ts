import { describe, expect, it } from 'vitest';
import { goJson, goJsonString } from '../../../src/go/json.ts';

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

  it('writes every ASCII character as Go does, alone and amid plain text', () => {
    // For ASCII, Go's encoder is JSON.stringify plus the three HTML escapes.
    const go = (s: string) => JSON.stringify(s).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
    for (let c = 0; c < 0x80; c++) {
      for (const s of [String.fromCharCode(c), `name-${String.fromCharCode(c)}-x`]) expect(goJsonString(s), `U+${c}`).toBe(go(s));
    }
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
