/**
 * Kubernetes resource quantities (`500m`, `1.5`, `16Gi`, `1e3`, `64M`, `2E`, `1e400`, …) read exactly
 * as the API server reads and stores them (`resource.ParseQuantity` after the JSON decoder's trimming,
 * then its canonical form, in k8s.io/apimachinery), as exact amounts of nano-units: `1.1` CPU is
 * 1 100 000 000 nano-units, `16Gi` of memory 16 × 2³⁰ × 10⁹. A fraction below one milli-unit rounds
 * away from zero (the API server stores `74n` as `1m`), and a binary-suffixed amount is capped at
 * 2⁶³−1 units, as there.
 *
 * The API server accepts any decimal exponent an int64 holds, wrapped to 32 bits (`1e400` is stored
 * as `10e399`), so an amount is kept as a coefficient and a power of ten, never expanded into the
 * digits it names; amounts compare and add exactly (see {@link addAmounts} for the one limit).
 *
 * @module
 */

/** One unit in nano-units. */
export const NANO = 1_000_000_000n;

/**
 * An exact amount of nano-units: `coefficient × 10^exponent`, the exponent never negative (a quantity
 * is rounded to whole nano-units) and the coefficient without trailing zeros unless it is zero.
 */
export interface Amount {
  readonly coefficient: bigint;
  readonly exponent: number;
}

/** Zero nano-units. */
export const ZERO: Amount = { coefficient: 0n, exponent: 0 };

/** The amount `coefficient × 10^exponent` in its one form. */
function amount(coefficient: bigint, exponent: number): Amount {
  if (coefficient === 0n) return ZERO;
  let c = coefficient;
  let e = exponent;
  while (c % 10n === 0n) {
    c /= 10n;
    e++;
  }
  return { coefficient: c, exponent: e };
}

/** An amount of whole nano-units. */
export function nanos(value: bigint): Amount {
  return amount(value, 0);
}

const BINARY: Readonly<Record<string, bigint>> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** The most units a binary-suffixed quantity may hold (the API server caps it there: the largest int64). */
const MAX_BINARY_UNITS = (1n << 63n) - 1n;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** The characters a suffix may begin with, before its optional sign and digits. */
const SUFFIX_LETTERS = 'eEinumkKMGTP';

/** What the API server's reader takes a quantity's text apart into, or undefined when it refuses it. */
interface Parts {
  readonly negative: boolean;
  /** The digits before the point, without leading zeros (`0` when none). */
  readonly whole: string;
  /** The digits after the point. */
  readonly fraction: string;
  readonly suffix: string;
  /**
   * Whether the number's own text (sign, digits, point) holds a digit, or is a sign alone, which the
   * reader takes for `0`. The API server's exact (slow) path parses that text again and refuses one
   * without a digit: `Ki` is zero there, `Ei` and `E-400` are refused.
   */
  readonly numberHasDigit: boolean;
}

/**
 * The text taken apart as `parseQuantityString` does: a sign, digits, a point and digits (either side
 * may be empty), then a suffix of suffix letters, an optional sign and digits, and nothing else.
 */
function partsOf(text: string): Parts | undefined {
  let at = 0;
  const negative = text[0] === '-';
  if (text[0] === '-' || text[0] === '+') at++;
  while (text[at] === '0') at++;
  const digitsFrom = at;
  while (at < text.length && isDigit(text, at)) at++;
  const whole = text.slice(digitsFrom, at) || '0';
  let fraction = '';
  if (text[at] === '.') {
    const from = ++at;
    while (at < text.length && isDigit(text, at)) at++;
    fraction = text.slice(from, at);
  }
  const suffixFrom = at;
  while (at < text.length && SUFFIX_LETTERS.includes(text[at] as string)) at++;
  if (text[at] === '-' || text[at] === '+') at++;
  while (at < text.length && isDigit(text, at)) at++;
  if (at !== text.length) return undefined;
  const number = text.slice(0, suffixFrom);
  const numberHasDigit = /\d/.test(number) || /^[+-]?$/.test(text);
  return { negative, whole, fraction, suffix: text.slice(suffixFrom), numberHasDigit };
}

function isDigit(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return c >= 0x30 && c <= 0x39;
}

/**
 * Whether the API server reads a binary-suffixed quantity on its int64 (fast) path: no fraction, few
 * enough digits for the suffix (its estimate of the digits `2^shift` takes), and no int64 overflow.
 */
function binaryFastPath(whole: string, fraction: string, shift: bigint): boolean {
  const precision = 15 - whole.length - (Number(shift) * 3) / 10 - 1;
  return fraction === '' && precision >= 0 && BigInt(whole) << shift <= INT64_MAX;
}

/** Go's `strings.TrimSpace`: the Unicode white space at both ends. */
function trimSpace(text: string): string {
  return text.replace(/^[\s\u0085]+|[\s\u0085]+$/gu, '');
}

/** `n / 10^k` rounded away from zero, for a `k` that may be far larger than `n` has digits. */
function divideUp(n: bigint, k: number): bigint {
  if (k <= 0) return n * 10n ** BigInt(-k);
  const magnitude = n < 0n ? -n : n;
  if (magnitude === 0n) return 0n;
  if (k > magnitude.toString().length) return n < 0n ? -1n : 1n;
  const d = 10n ** BigInt(k);
  const q = (magnitude + d - 1n) / d;
  return n < 0n ? -q : q;
}

/**
 * Reads a quantity as the API server stores it, in nano-units, or undefined when it refuses the text. Every
 * form it accepts is accepted: a sign, a decimal number (`1.`, `.5`, even an empty one, which is zero),
 * then nothing, a binary suffix (`Ki`…`Ei`), a decimal suffix (`n`, `u`, `m`, `k`, `M`, `G`, `T`, `P`,
 * `E`) or a decimal exponent (`e3`, `E-2`, `e400`; one beyond 32 bits wraps, as it does there).
 */
export function parseQuantity(text: string): Amount | undefined {
  const trimmed = trimSpace(text);
  if (trimmed === '') return undefined;
  const parts = partsOf(trimmed);
  if (parts === undefined) return undefined;
  const { negative, whole, fraction, suffix, numberHasDigit } = parts;
  const digits = BigInt(`${whole}${fraction}`);
  const signed = negative ? -digits : digits;
  const shift = BINARY[suffix];
  if (shift !== undefined) {
    if (!numberHasDigit && !binaryFastPath(whole, fraction, shift)) return undefined;
    const milli = divideUp(signed * (1n << shift) * 1000n, fraction.length);
    const cap = MAX_BINARY_UNITS * 1000n;
    return amount(milli > cap ? cap : milli < -cap ? -cap : milli, 6);
  }
  let power = DECIMAL[suffix];
  if (power === undefined) {
    const e = /^[eE]([+-]?\d+)$/.exec(suffix);
    if (e === null) return undefined;
    const parsed = BigInt(e[1] as string);
    if (parsed > INT64_MAX || parsed < INT64_MIN) return undefined;
    power = Number(BigInt.asIntN(32, parsed));
  }
  if (!numberHasDigit && !(whole.length + fraction.length <= 18 && power - fraction.length >= -9)) return undefined;
  // digits × 10^(power − fraction digits) units, that is × 10^(… + 3) milli-units, rounded to whole ones.
  const milli = power - fraction.length + 3;
  return milli >= 0 ? amount(signed, milli + 6) : amount(divideUp(signed, -milli), 6);
}

/** How many decimal digits an amount's integer has: where it stands among others. */
function order(a: Amount): number {
  const c = a.coefficient < 0n ? -a.coefficient : a.coefficient;
  return c.toString().length + a.exponent;
}

/**
 * The most powers of ten two amounts may lie apart for their sum to be exact: 100,000 digits is a few
 * tens of kilobytes of integer. Past it, the smaller, a hundred thousand orders of magnitude below
 * the larger, is dropped from the sum; no amount a node or pod could hold is anywhere near.
 */
const MAX_ALIGN = 100_000;

/** The sum of two amounts, exact unless they lie more than {@link MAX_ALIGN} orders of magnitude apart. */
export function addAmounts(a: Amount, b: Amount): Amount {
  if (a.coefficient === 0n) return b;
  if (b.coefficient === 0n) return a;
  const [low, high] = a.exponent <= b.exponent ? [a, b] : [b, a];
  if (high.exponent - low.exponent > MAX_ALIGN) return order(high) >= order(low) ? high : low;
  return amount(low.coefficient + high.coefficient * 10n ** BigInt(high.exponent - low.exponent), low.exponent);
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`, exactly, whatever their exponents. */
export function compareAmounts(a: Amount, b: Amount): -1 | 0 | 1 {
  const sa = a.coefficient < 0n ? -1 : a.coefficient > 0n ? 1 : 0;
  const sb = b.coefficient < 0n ? -1 : b.coefficient > 0n ? 1 : 0;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const [oa, ob] = [order(a), order(b)];
  // More integer digits is larger for positive amounts, smaller for negative ones.
  if (oa !== ob) return oa < ob === sa > 0 ? -1 : 1;
  // Same number of integer digits: align the coefficients (they differ in length by less than their digits).
  const shift = a.exponent - b.exponent;
  const [ca, cb] =
    shift >= 0 ? [a.coefficient * 10n ** BigInt(shift), b.coefficient] : [a.coefficient, b.coefficient * 10n ** BigInt(-shift)];
  return ca === cb ? 0 : ca < cb ? -1 : 1;
}

/** Whether the amount is above zero. */
export function isPositive(a: Amount): boolean {
  return a.coefficient > 0n;
}

/** The amount as a bigint of nano-units when it has at most `digits` digits, else undefined. */
function asNanos(a: Amount, digits: number): bigint | undefined {
  return order(a) <= digits ? a.coefficient * 10n ** BigInt(a.exponent) : undefined;
}

const BINARY_DESC: readonly [string, bigint][] = Object.entries(BINARY)
  .reverse()
  .map(([suffix, shift]) => [suffix, 1n << shift]);
const DECIMAL_DESC: readonly [string, bigint][] = [
  ['E', 10n ** 18n],
  ['P', 10n ** 15n],
  ['T', 10n ** 12n],
  ['G', 10n ** 9n],
  ['M', 10n ** 6n],
  ['k', 10n ** 3n],
];

function withSuffix(units: bigint, table: readonly (readonly [string, bigint])[]): string {
  for (const [suffix, size] of table) if (units !== 0n && units % size === 0n) return `${units / size}${suffix}`;
  return String(units);
}

/**
 * Formats an amount for a message: CPU in cores or millicores (`2`, `1500m`), other resources in the
 * shortest of their plain, binary-suffixed and decimal-suffixed forms (`16Gi`, `64M`, `3`); an amount
 * of more than 30 digits with a decimal exponent that is a multiple of three, as the API server
 * writes one (`10e399`).
 */
export function formatQuantity(value: Amount, resource: string): string {
  const exact = asNanos(value, 30);
  if (exact === undefined) {
    const unitsExponent = value.exponent - 9;
    const e = Math.floor(unitsExponent / 3) * 3;
    return `${value.coefficient * 10n ** BigInt(unitsExponent - e)}e${e}`;
  }
  if (exact % NANO !== 0n) {
    return exact % 1_000_000n === 0n ? `${exact / 1_000_000n}m` : `${exact}n`;
  }
  const units = exact / NANO;
  if (resource === 'cpu') return String(units);
  const candidates = [String(units), withSuffix(units, BINARY_DESC), withSuffix(units, DECIMAL_DESC)];
  return candidates.reduce((best, c) => (c.length < best.length ? c : best));
}
