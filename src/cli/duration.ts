const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a duration in Go's syntax (`500ms`, `30s`, `1h30m`, `1.5s`, `-2s`, `0`) into milliseconds.
 * A bare number other than 0 is refused, as Go refuses it. Returns undefined when invalid.
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
