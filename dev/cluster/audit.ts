// Reading the test control plane's audit log (one JSON event per line, Metadata level).
import { readFileSync } from 'node:fs';

/** The fields of an audit event the tests look at. */
export interface AuditEntry {
  readonly stage: string;
  readonly verb: string;
  readonly requestURI: string;
  readonly user: { readonly username: string };
  readonly objectRef?: { readonly resource?: string; readonly subresource?: string };
}

/** Every completed request in the audit log made by one of `usernames`. */
export function completedRequestsBy(auditLogPath: string, usernames: ReadonlySet<string>): AuditEntry[] {
  return readFileSync(auditLogPath, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEntry)
    .filter((e) => e.stage === 'ResponseComplete' && usernames.has(e.user.username));
}

/** The requests of `usernames` whose verb is not a read. */
export function writesBy(auditLogPath: string, usernames: ReadonlySet<string>): AuditEntry[] {
  return completedRequestsBy(auditLogPath, usernames).filter((e) => !['get', 'list', 'watch'].includes(e.verb));
}
