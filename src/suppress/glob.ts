/**
 * Resource globs of suppression rules, matched without regular expressions. An operator writes the
 * glob and the cluster writes the names it is matched against, so the matcher must take time bounded
 * by the product of their lengths whatever either holds. A backtracking regular expression built from
 * `*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b` takes seconds on a name of 32 `a`s, about three times as long for
 * every two more, so far longer than anyone waits on a name of 250; and a process busy that way
 * cannot even handle SIGTERM.
 *
 * @module
 */

/** A pattern position that matches any one code point (`?`). Code points are never negative. */
const ANY = -1;

/**
 * One run of a glob between stars: the code point each position wants, or {@link ANY}. A segment
 * matches a fixed number of code points, which is what lets the matcher place each one greedily.
 */
type Segment = Int32Array;

/** The segment of no positions: the head or tail of a glob that begins or ends with a star. */
const EMPTY: Segment = new Int32Array(0);

/** The work one match did, in steps: each step reads one code point of the name. */
export interface GlobRun {
  readonly matched: boolean;
  readonly steps: number;
}

/** The step counter of a measured match; absent on the ordinary path, which counts nothing. */
interface Meter {
  steps: number;
}

/** What a segment placed at one position came to. */
const MISMATCH = -1;
/** The segment ran into the limit: it does not fit there, nor at any later position. */
const NO_ROOM = -2;

/**
 * A compiled resource glob: `*` matches any run of characters (`/` included, the empty run too), `?`
 * exactly one character, and every other character only itself, case-sensitively. The glob is
 * anchored at both ends: it matches a whole name or nothing.
 *
 * A character is a Unicode code point, what `.` matches in a regular expression with the `u` and `s`
 * flags: `?` matches one astral character such as `😀` (two UTF-16 code units), a surrogate pair is
 * never split, and a lone surrogate counts as one character. Line terminators are characters like
 * any other.
 *
 * Compiling splits the glob once into the segments between its stars; matching allocates nothing. A rule is compiled once and matched against every finding of its
 * code in a run.
 *
 * The algorithm and its bound. A glob without a star is one segment that must match the whole name.
 * Otherwise it is `H*S1*S2*…*Sk*T`: runs of stars count as one, so every `Si` holds at least one
 * position, while the head `H` and the tail `T` may be empty. A name matches exactly when it begins
 * with `H`, ends with `T` (the two not overlapping), and `S1` … `Sk` occur in order, without
 * overlapping, in what lies between. Each segment matches a fixed number of code points, so placing
 * each `Si` at the first position where it fits is never worse than placing it later: whatever a
 * later placement leaves room for, the earlier one leaves room for too. The matcher therefore never
 * goes back: it tries `S1` at each position from the end of `H` on, then `S2` from the end of `S1`'s
 * match, and so on. With `N` code points in the name and `m` in the glob:
 *
 * - `H` takes at most `|H|` steps; finding where `T` starts (walking back `|T|` code points) and
 *   comparing it take at most `2·|T|`.
 * - The positions tried for `Si` run from the end of the previous match to where `Si` matches, so the
 *   ranges tried for different segments do not overlap: at most `N + 1` tries in all. A try takes at
 *   most `|Si| ≤ m` steps, and the first try that reaches the start of `T` ends the whole search.
 *
 * So a match takes at most `(N + 3)·m` steps (see {@link GlobMatcher.measure}): quadratic only in the
 * worst case, and in practice linear, since a try usually fails on its first code point.
 */
export class GlobMatcher {
  /** The glob as written. Two matchers are deeply equal exactly when their sources are the same. */
  readonly source: string;
  /** The segment before the first star, or the whole glob when it has no star. */
  readonly #head: Segment;
  /** The segments between stars, in order; none is empty. */
  readonly #middle: readonly Segment[];
  /** The segment after the last star; absent when the glob has no star. */
  readonly #tail: Segment | undefined;

  constructor(source: string) {
    this.source = source;
    const segments: Segment[] = [];
    let current: number[] = [];
    let afterStar = false;
    for (const ch of source) {
      if (ch !== '*') current.push(ch === '?' ? ANY : (ch.codePointAt(0) ?? 0));
      else if (!afterStar) {
        segments.push(Int32Array.from(current));
        current = [];
      }
      afterStar = ch === '*';
    }
    segments.push(Int32Array.from(current));
    this.#head = segments[0] ?? EMPTY;
    this.#tail = segments.length > 1 ? segments[segments.length - 1] : undefined;
    this.#middle = segments.slice(1, -1);
  }

  /** Whether the glob matches the whole of `name`. */
  test(name: string): boolean {
    return this.#match(name, undefined);
  }

  /**
   * Whether the glob matches `name`, and how many steps it took: at most `(N + 3)·m` for a name of
   * `N` code points and a glob of `m`, as the class's description shows. For tests and benchmarks;
   * {@link test} counts nothing.
   */
  measure(name: string): GlobRun {
    const meter: Meter = { steps: 0 };
    const matched = this.#match(name, meter);
    return { matched, steps: meter.steps };
  }

  #match(name: string, meter: Meter | undefined): boolean {
    const end = name.length;
    const tail = this.#tail;
    if (tail === undefined) return placeAt(this.#head, name, 0, end, meter) === end;
    const headEnd = placeAt(this.#head, name, 0, end, meter);
    if (headEnd < 0) return false;
    const tailStart = startOfLast(tail.length, name, headEnd, meter);
    if (tailStart < 0 || placeAt(tail, name, tailStart, end, meter) !== end) return false;
    let from = headEnd;
    const middle = this.#middle;
    for (let s = 0; s < middle.length; s++) {
      const segment = middle[s] ?? EMPTY;
      for (let at = from; ; at += width(name, at)) {
        const next = placeAt(segment, name, at, tailStart, meter);
        if (next === NO_ROOM) return false;
        if (next !== MISMATCH) {
          from = next;
          break;
        }
      }
    }
    return true;
  }
}

/**
 * Whether `segment` matches the code points of `name` from index `at` without passing `limit`: the
 * index after its match, {@link MISMATCH}, or {@link NO_ROOM} when the name reached `limit` first.
 * `at` and `limit` are code point boundaries.
 */
function placeAt(segment: Segment, name: string, at: number, limit: number, meter: Meter | undefined): number {
  let i = at;
  for (let k = 0; k < segment.length; k++) {
    if (i >= limit) return NO_ROOM;
    const want = segment[k] ?? ANY;
    if (meter !== undefined) meter.steps++;
    const got = name.codePointAt(i) ?? ANY;
    if (want !== ANY && want !== got) return MISMATCH;
    i += got > 0xffff ? 2 : 1;
  }
  return i;
}

/** Where the last `count` code points of `name` begin, or -1 when fewer than `count` follow `floor`. */
function startOfLast(count: number, name: string, floor: number, meter: Meter | undefined): number {
  let i = name.length;
  for (let k = 0; k < count; k++) {
    if (i <= floor) return -1;
    if (meter !== undefined) meter.steps++;
    i -= i - 2 >= floor && isLowSurrogate(name.charCodeAt(i - 1)) && isHighSurrogate(name.charCodeAt(i - 2)) ? 2 : 1;
  }
  return i;
}

/** How many UTF-16 code units the code point at `at` takes: 2 for a surrogate pair, else 1. */
function width(name: string, at: number): number {
  return (name.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
