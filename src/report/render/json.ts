import type { Report } from '../finding.ts';
import { goJson } from '../../go/json.ts';

/**
 * The JSON report (upstream-doctor.md ): `summary` {ok, info, warn, fail, exitCode} then
 * `findings` [{code, status, check, resource, message}] in emission order, `resource` omitted when
 * empty, two-space indentation, Go's HTML-safe string escaping, one trailing newline. A run that
 * stopped early adds `summary.incomplete`, why.
 * Keys are only ever added, never renamed or reordered.
 */
export function renderJson(report: Report): string {
  const { ok, info, warn, fail, exitCode, incomplete } = report.summary;
  const document = {
    summary: { ok, info, warn, fail, exitCode, incomplete },
    findings: report.findings.map((f) => ({
      code: f.code,
      status: f.status,
      check: f.check,
      resource: f.resource === '' ? undefined : f.resource,
      message: f.message,
    })),
  };
  return `${goJson(document, '  ')}\n`;
}
