/**
 * Kubernetes resource quantities (`500m`, `1.5`, `16Gi`, `1e3`, `64M`, `2E`, …) as exact integers of
 * nano-units, so that a request and an allocatable compare without float rounding: `1.1` CPU is
 * 1 100 000 000n, `16Gi` of memory is 16 × 2³⁰ × 10⁹. A fraction below one nano-unit rounds up, as
 * the API server's canonical form does.
 *
 * @module
 */

/** One unit in nano-units. */
export const NANO = 1_000_000_000n;

const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
/** Larger decimal exponents are refused instead of building enormous integers from a malformed value. */
const MAX_EXPONENT = 64;
const NUMBER = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(.*)$/;

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** Rounds a positive fraction up. */
function ceilDiv(n: bigint, d: bigint): bigint {
  return (n + d - 1n) / d;
}

/**
 * Parses a quantity into nano-units, or undefined when it is not one. Accepts every form the API
 * server accepts: an optional sign, a decimal number, then nothing, a binary suffix (`Ki`…`Ei`), a
 * decimal suffix (`n`, `u`, `m`, `k`, `M`, `G`, `T`, `P`, `E`) or a decimal exponent (`e3`, `E-2`).
 */
export function parseQuantity(text: string): bigint | undefined {
  const m = NUMBER.exec(text.trim());
  if (m === null) return undefined;
  const [, sign = '', digits = '', suffix = ''] = m;
  const [whole = '', fraction = ''] = digits.split('.');
  const mantissa = BigInt(`${whole}${fraction}` || '0');
  let numerator = mantissa * NANO;
  let denominator = pow10(fraction.length);
  const binary = BINARY[suffix];
  let exponent: number | undefined = DECIMAL[suffix];
  if (binary !== undefined) {
    numerator *= binary;
  } else {
    if (exponent === undefined) {
      const e = /^[eE]([+-]?\d+)$/.exec(suffix);
      if (e === null) return undefined;
      exponent = Number(e[1]);
      if (Math.abs(exponent) > MAX_EXPONENT) return undefined;
    }
    if (exponent >= 0) numerator *= pow10(exponent);
    else denominator *= pow10(-exponent);
  }
  const magnitude = ceilDiv(numerator, denominator);
  return sign === '-' ? -magnitude : magnitude;
}

const BINARY_DESC = Object.entries(BINARY).reverse();
const DECIMAL_DESC: readonly [string, bigint][] = [
  ['E', pow10(18)],
  ['P', pow10(15)],
  ['T', pow10(12)],
  ['G', pow10(9)],
  ['M', pow10(6)],
  ['k', pow10(3)],
];

function withSuffix(units: bigint, table: readonly (readonly [string, bigint])[]): string {
  for (const [suffix, size] of table) if (units !== 0n && units % size === 0n) return `${units / size}${suffix}`;
  return String(units);
}

/**
 * Formats nano-units for a message: CPU in cores or millicores (`2`, `1500m`), other resources in the
 * shortest of their plain, binary-suffixed and decimal-suffixed forms (`16Gi`, `64M`, `3`).
 */
export function formatQuantity(nanos: bigint, resource: string): string {
  if (nanos % NANO !== 0n) {
    return nanos % 1_000_000n === 0n ? `${nanos / 1_000_000n}m` : `${nanos}n`;
  }
  const units = nanos / NANO;
  if (resource === 'cpu') return String(units);
  const candidates = [String(units), withSuffix(units, BINARY_DESC), withSuffix(units, DECIMAL_DESC)];
  return candidates.reduce((best, c) => (c.length < best.length ? c : best));
}
