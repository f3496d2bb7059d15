/**
 * Resource globs: a table of what matches and what does not, the matcher against a plain reference on
 * thousands of random globs and names, and the hostile glob that makes a backtracking regular
 * expression run for ever, bounded by the matcher's own count of its work.
 */
import { describe, expect, it } from 'vitest';
import { GlobMatcher } from '../../../src/suppress/glob.ts';
import { globPattern, parseSuppressFlag } from '../../../src/suppress/rule.ts';
import { seededRandom } from '../../support/seeded-random.ts';

/**
 * The reference: the definition of a glob, written as plainly as it can be, over code points. Memoised
 * on (glob position, name position), so it takes time proportional to the product of the lengths.
 */
function reference(glob: string, name: string): boolean {
  const p = Array.from(glob);
  const n = Array.from(name);
  const memo = new Map<number, boolean>();
  const from = (i: number, j: number): boolean => {
    const key = i * (n.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === p.length) result = j === n.length;
    else if (p[i] === '*') result = from(i + 1, j) || (j < n.length && from(i, j + 1));
    else result = j < n.length && (p[i] === '?' || p[i] === n[j]) && from(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return from(0, 0);
}

/**
 * The same glob as a regular expression with the `u` and `s` flags: a second reference, for the
 * semantics of `?` on astral characters, lone surrogates and line terminators. Only for short inputs:
 * it backtracks exponentially on hostile ones.
 */
function asRegExp(glob: string): RegExp {
  const body = [...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'su');
}

const GRIN = '😀';
const HIGH = GRIN.charAt(0);
const LOW = GRIN.charAt(1);

/** [glob, name, matches]: positive and negative cases side by side. */
const CASES: readonly (readonly [string, string, boolean])[] = [
  ['', '', true],
  ['', 'a', false],
  ['*', '', true],
  ['*', 'cachebackend/prod/a', true],
  ['*', '\n', true],
  ['?', 'a', true],
  ['?', '/', true],
  ['?', '', false],
  ['?', 'ab', false],
  ['cachebackend/prod/a', 'cachebackend/prod/a', true],
  ['cachebackend/prod/a', 'cachebackend/prod/ab', false],
  ['prod', 'cachebackend/prod/a', false],
  ['CacheBackend', 'CacheBackend', true],
  ['CacheBackend', 'cachebackend', false],
  ['*/a', 'cachebackend/prod/a', true],
  ['*/a', 'cachebackend/prod/ab', false],
  ['cachebackend/*', 'cachebackend/prod/a', true],
  ['cachebackend/*', 'cachetenant/prod/a', false],
  ['cachebackend/*/a', 'cachebackend/team/prod/a', true],
  ['cachebackend/*/a', 'cachebackend/prod/b', false],
  ['*prod*', 'cachebackend/prod/a', true],
  ['*prod*', 'cachebackend/pro/d', false],
  ['**', '', true],
  ['a**b', 'ab', true],
  ['a***b', 'axyb', true],
  ['a**b', 'axyc', false],
  ['a*a', 'aa', true],
  ['a*a', 'a', false],
  ['?*?', 'ab', true],
  ['?*?', 'a', false],
  ['*a?c*', 'xxabcx', true],
  ['*a?c*', 'xxabdx', false],
  ['*ab*ab*', 'abab', true],
  ['*ab*ab*', 'aba', false],
  ['a?b', 'a\nb', true],
  ['a?b', 'a\nxb', false],
  ['a.b', 'a.b', true],
  ['a.b', 'axb', false],
  ['a+', 'a+', true],
  ['a+', 'aa', false],
  ['(a)', '(a)', true],
  ['(a)', 'a', false],
  ['[ab]', '[ab]', true],
  ['[ab]', 'a', false],
  ['a\\b', 'a\\b', true],
  ['a\\b', 'ab', false],
  ['a\\*', 'a\\xyz', true],
  ['a\\*', 'a*', false],
  ['^a$', '^a$', true],
  ['^a$', 'a', false],
  ['a|b', 'a|b', true],
  ['a|b', 'a', false],
  ['a{2}', 'a{2}', true],
  ['a{2}', 'aa', false],
  ['?', GRIN, true],
  ['??', GRIN, false],
  [`*${GRIN}`, `x${GRIN}`, true],
  [`*${GRIN}`, `x${HIGH}`, false],
  [`${GRIN}?`, `${GRIN}${GRIN}`, true],
  [`?${GRIN}`, GRIN, false],
  ['?', HIGH, true],
  ['?', LOW, true],
  [`*${LOW}`, `${HIGH}${LOW}`, false],
  [`*${LOW}`, `${LOW}${LOW}`, true],
  [`${HIGH}*`, GRIN, false],
  [`${HIGH}?`, GRIN, false],
  [`${HIGH}?`, `${HIGH}${HIGH}`, true],
];

/** A printable form of a glob or name, for test names and failure messages. */
const shown = (text: string) => JSON.stringify(text).replace(/[\ud800-\udfff]/g, (u) => `\\u${u.charCodeAt(0).toString(16)}`);

describe('GlobMatcher', () => {
  it.each(CASES.map(([glob, name, matches]) => [shown(glob), shown(name), matches, glob, name] as const))(
    '%s against %s: %s',
    (_g, _n, matches, glob, name) => {
      expect(new GlobMatcher(glob).test(name)).toBe(matches);
      expect(reference(glob, name), 'the reference agrees with the table').toBe(matches);
      expect(asRegExp(glob).test(name), 'the regular expression agrees with the table').toBe(matches);
    },
  );

  it('is what a --suppress rule matches with', () => {
    const { scope } = parseSuppressFlag('CB004=cachebackend/*/a?');
    expect(scope).toEqual({ kind: 'glob', pattern: globPattern('cachebackend/*/a?') });
    expect(scope.kind === 'glob' && scope.pattern.test('cachebackend/prod/a1')).toBe(true);
    expect(scope.kind === 'glob' && scope.pattern.test('cachebackend/prod/a')).toBe(false);
  });

  it('is equal to another matcher exactly when their globs are the same', () => {
    expect(new GlobMatcher('cachebackend/*')).toEqual(new GlobMatcher('cachebackend/*'));
    expect(new GlobMatcher('cachebackend/*')).not.toEqual(new GlobMatcher('cachetenant/*'));
  });
});

/** Random strings of up to `max` characters drawn from `alphabet`. */
function strings(rand: () => number, alphabet: readonly string[], max: number): () => string {
  return () => {
    let out = '';
    for (let k = Math.floor(rand() * (max + 1)); k > 0; k--) out += alphabet[Math.floor(rand() * alphabet.length)] ?? '';
    return out;
  };
}

/** Every disagreement between the matcher and the references on `count` random globs and names. */
function disagreements(seed: number, count: number, globAlphabet: readonly string[], nameAlphabet: readonly string[]): string[] {
  const rand = seededRandom(seed);
  const glob = strings(rand, globAlphabet, 12);
  const name = strings(rand, nameAlphabet, 12);
  const found: string[] = [];
  for (let k = 0; k < count; k++) {
    const g = glob();
    const matcher = new GlobMatcher(g);
    for (let j = 0; j < 4; j++) {
      const n = name();
      const want = reference(g, n);
      const got = matcher.test(n);
      const regexp = asRegExp(g).test(n);
      if (got !== want || regexp !== want)
        found.push(`${shown(g)} against ${shown(n)}: matcher ${got}, reference ${want}, regexp ${regexp}`);
    }
  }
  return found;
}

describe('GlobMatcher on random globs and names', () => {
  it('agrees with the reference over a, b, /, * and ?', () => {
    const alphabet = ['a', 'b', '/', '*', '?'];
    expect(disagreements(1, 5_000, alphabet, alphabet)).toEqual([]);
  });

  it('agrees with the reference when names are mostly one letter (long searches between stars)', () => {
    expect(disagreements(2, 3_000, ['a', 'a', 'b', '*', '*', '?'], ['a', 'a', 'a', 'b'])).toEqual([]);
  });

  it('agrees with the reference on astral characters and lone surrogates, one code point each', () => {
    const letters = ['a', GRIN, HIGH, LOW];
    expect(disagreements(3, 3_000, [...letters, '*', '?'], letters)).toEqual([]);
  });
});

describe('GlobMatcher on hostile globs', () => {
  const HOSTILE = '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b';
  const LENGTH = 250;

  /** Thirty names of 250 characters: all `a`s, and names that match or almost match. */
  function hostileNames(): string[] {
    const a = (k: number) => 'a'.repeat(k);
    const names = [
      a(LENGTH),
      a(LENGTH - 1) + 'b',
      a(LENGTH - 1) + 'c',
      'b' + a(LENGTH - 1),
      'ab'.repeat(LENGTH / 2),
      'ba'.repeat(LENGTH / 2),
      a(13) + 'x'.repeat(LENGTH - 14) + 'b',
      'x'.repeat(LENGTH - 14) + a(13) + 'b',
      a(14) + 'x'.repeat(LENGTH - 14),
      'x'.repeat(LENGTH - 15) + a(14) + 'b',
      ...[0, 1, 7, 13, 14, 15, 100, 249].map((k) => a(k) + 'b'.repeat(LENGTH - k)),
    ];
    const rand = seededRandom(4);
    while (names.length < 30) {
      let name = '';
      for (let k = 1; k < LENGTH; k++) name += rand() < 0.05 ? 'a' : 'x';
      names.push(name + (rand() < 0.5 ? 'b' : 'a'));
    }
    return names;
  }

  it('reads each name at most (N + 3)·m times, and all thirty well within a second', () => {
    const matcher = new GlobMatcher(HOSTILE);
    const names = hostileNames();
    expect(names).toHaveLength(30);
    const bound = (LENGTH + 3) * [...HOSTILE].length;
    for (const name of names) {
      expect(name).toHaveLength(LENGTH);
      const run = matcher.measure(name);
      expect(run.matched, shown(name)).toBe(reference(HOSTILE, name));
      expect(run.steps, shown(name)).toBeLessThanOrEqual(bound);
    }
    expect(names.filter((n) => matcher.test(n)).length, 'some names match, some do not').toBeGreaterThan(0);
    expect(names.filter((n) => !matcher.test(n)).length, 'some names match, some do not').toBeGreaterThan(0);

    // The step bound is the assertion; the clock only guards against a hang, with room for any load.
    const started = performance.now();
    for (const name of names) matcher.test(name);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('counts the work it does: a segment that fails on its last character is read in full at every try', () => {
    const glob = `*${'a'.repeat(9)}b*`;
    const run = new GlobMatcher(glob).measure('a'.repeat(LENGTH));
    expect(run.matched).toBe(false);
    expect(run.steps).toBeGreaterThan((LENGTH - 10) * 10 - 1);
    expect(run.steps).toBeLessThanOrEqual((LENGTH + 3) * [...glob].length);
  });

  it('bounds the steps of random globs by (N + 3)·m on long names', () => {
    const rand = seededRandom(5);
    const glob = strings(rand, ['a', 'a', 'b', '*', '?'], 30);
    const over: string[] = [];
    for (let k = 0; k < 500; k++) {
      const g = glob();
      const n = Array.from({ length: 200 }, () => (rand() < 0.9 ? 'a' : 'b')).join('');
      const { steps } = new GlobMatcher(g).measure(n);
      if (steps > (n.length + 3) * [...g].length) over.push(`${shown(g)}: ${steps} steps`);
    }
    expect(over).toEqual([]);
  });
});
