import type { Finding, Report } from '../finding.ts';
import { goJson, type GoJsonValue } from '../../go/json.ts';

const INDENT = '  ';

/** A finding as the JSON report writes it: `resource` left out when empty. */
function findingDocument(f: Finding): GoJsonValue {
  return { code: f.code, status: f.status, check: f.check, resource: f.resource === '' ? undefined : f.resource, message: f.message };
}

/**
 * The JSON report (upstream-doctor.md ): `summary` {ok, info, warn, fail, exitCode} then
 * `findings` [{code, status, check, resource, message}] in emission order, `resource` omitted when
 * empty, two-space indentation, Go's HTML-safe string escaping, one trailing newline. A run that
 * stopped early adds `summary.incomplete`, why.
 * Keys are only ever added, never renamed or reordered.
 *
 * Written piece by piece, a finding at a time, so that a report of many thousand findings is never
 * one string in memory; the pieces joined are exactly `json.MarshalIndent` of the whole document.
 */
export function* renderJsonPieces(report: Report): Generator<string> {
  const { ok, info, warn, fail, exitCode, incomplete } = report.summary;
  yield `{\n${INDENT}"summary": ${goJson({ ok, info, warn, fail, exitCode, incomplete }, INDENT, INDENT)},\n${INDENT}"findings": `;
  if (report.findings.length === 0) {
    yield '[]\n}\n';
    return;
  }
  const depth = INDENT.repeat(2);
  let separator = '[';
  for (const f of report.findings) {
    yield `${separator}\n${depth}${goJson(findingDocument(f), INDENT, depth)}`;
    separator = ',';
  }
  yield `\n${INDENT}]\n}\n`;
}

/** The whole JSON report as one string (see {@link renderJsonPieces}). */
export function renderJson(report: Report): string {
  return [...renderJsonPieces(report)].join('');
}
