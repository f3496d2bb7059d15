/**
 * Go's `time.Parse(time.RFC3339, …)`, which Kubernetes reads its times with: `2026-12-05T10:00:00Z`,
 * an optional fraction of a second, and `Z` or a `±hh:mm` offset. Unlike `Date.parse`, a date that
 * does not exist (`2026-02-30`) is refused, not rolled over into the next month.
 *
 * @module
 */

const LAYOUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Days in `month` (1–12) of `year`, by the Gregorian calendar. */
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Milliseconds since the epoch of an RFC 3339 time, or undefined when the text is not one, or names no real instant. */
export function parseRfc3339(text: string): number | undefined {
  const m = LAYOUT.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[8] !== 'Z') {
    const [hours, minutes] = [Number(m[10]), Number(m[11])];
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, fraction);
  return utc.getTime() - offsetMinutes * 60_000;
}
