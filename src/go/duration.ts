/**
 * Go's `time.Duration` text form, both ways: `time.ParseDuration` for flags such as `--timeout`, and
 * `Duration.String` for ages and budgets in messages (`1m30s`, `1.5s`, `300ms`, `1h0m0s`). Durations
 * are carried in milliseconds, as everywhere else in the doctor; formatting works on whole
 * nanoseconds so that every digit Go would print is exact.
 *
 * @module
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Go `time.ParseDuration`, in milliseconds: a sequence of decimal numbers with units (`500ms`, `30s`,
 * `1h30m`, `1.5s`, `-2s`), or `0`. A bare number other than 0 is refused, as Go refuses it.
 * Undefined when the text is not a duration.
 */
export function parseGoDuration(text: string): number | undefined {
  const m = /^([+-]?)(.*)$/s.exec(text);
  if (m === null) return undefined;
  const [, sign, rest = ''] = m;
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  const part = /(\d*\.?\d*)([a-zµμ]+)/gy;
  let total = 0;
  let consumed = 0;
  for (let p = part.exec(rest); p !== null; p = part.exec(rest)) {
    const [whole, num = '', unit = ''] = p;
    const scale = UNIT_MS[unit];
    if (num === '' || num === '.' || scale === undefined) return undefined;
    total += Number(num) * scale;
    consumed += whole.length;
  }
  if (consumed !== rest.length) return undefined;
  return sign === '-' ? -total : total;
}

/**
 * `ms` rounded to whole seconds, halves away from zero (Go `Duration.Round(time.Second)`), still in
 * milliseconds. Never returns `-0`.
 *
 * @throws RangeError when `ms` is not a finite number.
 */
export function roundToSecondMs(ms: number): number {
  if (!Number.isFinite(ms)) throw new RangeError(`duration must be finite, got ${ms}`);
  const seconds = Math.round(Math.abs(ms) / 1000);
  return seconds === 0 ? 0 : Math.sign(ms) * seconds * 1000;
}

/** `whole.fraction` with the fraction's trailing zeros (and then the point) dropped. */
function withFraction(value: bigint, fractionDigits: number): string {
  const scale = 10n ** BigInt(fractionDigits);
  const fraction = (value % scale).toString().padStart(fractionDigits, '0').replace(/0+$/, '');
  return `${value / scale}${fraction === '' ? '' : `.${fraction}`}`;
}

const NS_PER_SECOND = 1_000_000_000n;

/** The bounds of Go's `time.Duration` (an int64 of nanoseconds): about 292 years either way. */
const MAX_NS = 2n ** 63n - 1n;
const MIN_NS = -(2n ** 63n);

/**
 * Go `Duration.String` of `ms` milliseconds (rounded to whole nanoseconds): `0s`; under a second in the
 * largest unit that keeps a whole part (`750ns`, `1.5µs`, `300ms`); from a second on as hours,
 * minutes and seconds with the seconds' fraction (`1.5s`, `1m30s`, `2m0.25s`, `1h0m0s`); hours are
 * not folded into days; a negative duration carries a leading `-`.
 *
 * @throws RangeError when `ms` is not a finite number.
 */
export function formatGoDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`duration must be finite, got ${ms}`);
  // Whole milliseconds are scaled exactly (a product past 2^53 would gain digits that are noise), and
  // the result saturates at Go's bounds, as time.Time.Sub does for instants centuries apart.
  const exact = Number.isInteger(ms) ? BigInt(ms) * 1_000_000n : BigInt(Math.round(ms * 1e6));
  const ns = exact > MAX_NS ? MAX_NS : exact < MIN_NS ? MIN_NS : exact;
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u < 1_000n) return `${sign}${u}ns`;
  if (u < 1_000_000n) return `${sign}${withFraction(u, 3)}µs`;
  if (u < NS_PER_SECOND) return `${sign}${withFraction(u, 6)}ms`;
  const totalSeconds = u / NS_PER_SECOND;
  const seconds = `${withFraction((totalSeconds % 60n) * NS_PER_SECOND + (u % NS_PER_SECOND), 9)}s`;
  const totalMinutes = totalSeconds / 60n;
  if (totalMinutes === 0n) return `${sign}${seconds}`;
  const hours = totalMinutes / 60n;
  const minutes = `${totalMinutes % 60n}m${seconds}`;
  return hours === 0n ? `${sign}${minutes}` : `${sign}${hours}h${minutes}`;
}
