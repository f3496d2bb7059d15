import type { Condition } from '../cluster/state.ts';

/** The first condition of the given type, matched exactly. */
export function conditionOf(conditions: readonly Condition[], type: string): Condition | undefined {
  return conditions.find((c) => c.type === type);
}

const utf8 = new TextEncoder();

/** Compares two strings by their UTF-8 bytes, the order Go's string comparison uses. */
export function byteCompare(a: string, b: string): number {
  return Buffer.compare(utf8.encode(a), utf8.encode(b));
}

/** Milliseconds since the epoch of an RFC 3339 time, or undefined when absent or unparsable. */
export function timeOf(rfc3339: string | undefined): number | undefined {
  if (rfc3339 === undefined || rfc3339 === '') return undefined;
  const ms = Date.parse(rfc3339);
  return Number.isNaN(ms) ? undefined : ms;
}
