import { describe, expect, it } from 'vitest';
import { goFields, goTrimSpace } from '../../../src/go/strings.ts';

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

describe('goTrimSpace (Go strings.TrimSpace)', () => {
  it.each<[string, string]>([
    ['  token\n', 'token'],
    ['\u0085\u00a0x\u3000', 'x'],
    ['\ufefftoken\ufeff', '\ufefftoken\ufeff'],
    ['a b', 'a b'],
    ['', ''],
  ])('%j → %j', (input, want) => {
    expect(goTrimSpace(input)).toBe(want);
  });
});
