/**
 * Tolerant readers of wire-shaped JSON for the projections: a field of the wrong type reads as
 * absent, because a diagnostic must not crash on the very breakage it is meant to report.
 */

/**
 * A count from the cluster (an int64 in the API), exact: a bigint when it is an integer beyond 2^53,
 * which a JavaScript number would round (9223372036854775807 would print as 9223372036854776000).
 */
export type Count = number | bigint;

/** Whether a count is zero, in either form. */
export function isZero(count: Count): boolean {
  return count === 0 || count === 0n;
}

/** A JSON object as it arrived on the wire. */
export type WireObject = Readonly<Record<string, unknown>>;

/** The value as a JSON object, or undefined when it is anything else (arrays included). */
export function obj(v: unknown): WireObject | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as WireObject) : undefined;
}

/** The elements of an array field; an absent or non-array field reads as empty. */
export function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The value as a string; anything else reads as the empty string. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A non-empty string, or undefined. */
export function optStr(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A finite number or an exact big integer (see `parseApiJson`), or undefined. */
export function optInt(v: unknown): Count | undefined {
  if (typeof v === 'bigint') return v;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The string entries of a map field, only those whose key `keep` accepts. */
export function stringMap(v: unknown, keep: (key: string) => boolean = () => true): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(obj(v) ?? {})) if (typeof val === 'string' && keep(k)) out[k] = val;
  return out;
}

/**
 * A Kubernetes `ResourceList`: quantities arrive as strings, but a hand-written object may carry a
 * plain number, which is kept in its decimal form.
 */
export function resourceList(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(obj(v) ?? {})) {
    if (typeof val === 'string') out[k] = val;
    else if (typeof val === 'number' && Number.isFinite(val)) out[k] = String(val);
  }
  return out;
}

/** Whether an object has no own keys. */
export function isEmpty(o: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(o).length === 0;
}

/** Namespace, name and uid from `metadata`, empty strings when absent. */
export function objectRef(raw: unknown): { namespace: string; name: string; uid: string } {
  const meta = obj(obj(raw)?.['metadata']);
  return { namespace: str(meta?.['namespace']), name: str(meta?.['name']), uid: str(meta?.['uid']) };
}
