// The interner keeps one copy of each value up to its limit and hands every value back unchanged;
// past the limit it remembers nothing more. Strings are compared by value in JavaScript, so which
// copy came back is seen through the copy function: it runs once per value kept, again for a value
// met past the limit. Maps are compared by identity.
import { describe, expect, it } from 'vitest';
import { Interner } from '../../../src/text/interner.ts';
import { flatString } from '../../../src/text/flat-string.ts';

function counted(limit: number): { interner: Interner; copies: string[] } {
  const copies: string[] = [];
  const interner = new Interner(limit, (value) => {
    copies.push(value);
    return value;
  });
  return { interner, copies };
}

describe('Interner.string', () => {
  it('copies a value the first time it is met, and hands back that copy after', () => {
    const { interner, copies } = counted(10);
    expect(['a', 'b', 'a', 'a', 'b', 'c'].map((s) => interner.string(s))).toEqual(['a', 'b', 'a', 'a', 'b', 'c']);
    expect(copies).toEqual(['a', 'b', 'c']);
  });

  it('past its limit, remembers nothing more: every new value is copied each time it is met', () => {
    const { interner, copies } = counted(2);
    for (const s of ['a', 'b', 'c', 'c', 'a']) interner.string(s);
    expect(copies).toEqual(['a', 'b', 'c', 'c']);
  });
});

describe('Interner.map', () => {
  it('hands back the first equal map, frozen, and a new map for other keys, values or order', () => {
    const interner = new Interner();
    const first = interner.map({ app: 'web', tier: 'front' });
    expect(first).toEqual({ app: 'web', tier: 'front' });
    expect(Object.isFrozen(first)).toBe(true);
    expect(interner.map({ app: 'web', tier: 'front' })).toBe(first);
    expect(interner.map({ tier: 'front', app: 'web' })).not.toBe(first);
    expect(interner.map({ app: 'web', tier: 'back' })).not.toBe(first);
    expect(interner.map({ app: 'web' })).not.toBe(first);
  });

  it('hands every empty map back as one frozen empty map', () => {
    const a = new Interner().map({});
    expect(a).toEqual({});
    expect(Object.isFrozen(a)).toBe(true);
    expect(new Interner(0).map({})).toBe(a);
  });

  it('keeps the keys and values of a new map through its strings', () => {
    const { interner, copies } = counted(10);
    interner.string('web');
    interner.map({ app: 'web' });
    expect(copies).toEqual(['web', 'app']);
  });

  it('past its limit, makes a new map each time', () => {
    const interner = new Interner(1);
    const kept = interner.map({ a: '1' });
    expect(interner.map({ a: '1' })).toBe(kept);
    const other = interner.map({ b: '2' });
    expect(interner.map({ b: '2' })).not.toBe(other);
    expect(interner.map({ b: '2' })).toEqual({ b: '2' });
  });

  it('never takes two different maps for one, however their keys and values run into each other', () => {
    const maps = [
      { a: '1:b' },
      { 'a1:': 'b' },
      { 'a1:b': '' },
      { a: '', '1:b': '' },
      { a: '1', b: '' },
      { '': 'a1:b' },
      { 'a","b': 'c' },
      { a: 'b', c: '' },
    ];
    const interner = new Interner();
    const kept = maps.map((m) => interner.map(m));
    expect(new Set(kept).size).toBe(maps.length);
    kept.forEach((m, i) => expect(m).toEqual(maps[i]));
    maps.forEach((m, i) => expect(interner.map({ ...m })).toBe(kept[i]));
  });
});

describe('flatString', () => {
  it.each([
    ['', 'empty'],
    ['plain text', 'ASCII'],
    ['héllo wörld ☃ 𝄞', 'non-ASCII and astral'],
    ['\u0000\u001b[31m\t\n"\\', 'control characters, quotes and backslashes'],
    ['\ud800 lone \udfff surrogates', 'lone surrogates'],
  ])('gives back %j unchanged (%s)', (text) => {
    const built = `${text.slice(0, 3)}${text.slice(3)}`;
    expect(flatString(built)).toBe(text);
  });
});
