/** The severity ladder, lowest first. The position in this list is the severity. */
export const STATUSES = ['OK', 'INFO', 'WARN', 'FAIL'] as const;

/** A finding's severity, rendered as these exact upper-case labels. */
export type Status = (typeof STATUSES)[number];

/** Severity rank: OK 0 < INFO 1 < WARN 2 < FAIL 3. */
export function rank(status: Status): number {
  return STATUSES.indexOf(status);
}
