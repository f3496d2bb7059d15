// Findings for renderer and report tests, with the status the code table gives each code.
import { codeTable } from '../../src/checks/codes.ts';
import type { CheckName, Code } from '../../src/checks/registry.ts';
import type { Finding } from '../../src/report/finding.ts';
import type { Status } from '../../src/report/status.ts';

const STATUS = new Map<string, Status>(codeTable().map((row) => [row.code, row.status]));

/** The status of a code, from the code table. */
export function statusOf(code: Code): Status {
  const status = STATUS.get(code);
  if (status === undefined) throw new Error(`${code} is not in the code table`);
  return status;
}

/** The codes of one status, in table order. */
export function codesOf(status: Status): Code[] {
  return codeTable()
    .filter((row) => row.status === status)
    .map((row) => row.code as Code);
}

/** Makes findings of one check, as its emitter would: `cb('CB002', 'cachebackend/ns1/bad', '…')`. */
export function findingsOf(check: CheckName): (code: Code, resource: string | undefined, message: string) => Finding {
  return (code, resource, message) =>
    resource === undefined || resource === ''
      ? { code, status: statusOf(code), check, message }
      : { code, status: statusOf(code), check, resource, message };
}
