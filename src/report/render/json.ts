import type { Finding, Report } from '../finding.ts';
import { goJson, goJsonString } from '../../go/json.ts';

const INDENT = '  ';

/**
 * A finding as the JSON report writes it at `depth`: `resource` left out when empty. Written out by
 * hand rather than through the generic `goJson`, which builds entry arrays for every object: a report
 * holds tens of thousands of findings. A test keeps the two equal.
 */
export function findingJson(f: Finding, depth: string): string {
  const inner = `,\n${depth}${INDENT}`;
  const resource = f.resource === undefined || f.resource === '' ? '' : `${inner}"resource": ${goJsonString(f.resource)}`;
  return (
    `{\n${depth}${INDENT}"code": ${goJsonString(f.code)}${inner}"status": ${goJsonString(f.status)}` +
    `${inner}"check": ${goJsonString(f.check)}${resource}${inner}"message": ${goJsonString(f.message)}\n${depth}}`
  );
}

/**
 * The JSON report (upstream-doctor.md ): `summary` {ok, info, warn, fail, exitCode} then
 * `findings` [{code, status, check, resource, message}] in emission order, `resource` omitted when
 * empty, two-space indentation, Go's HTML-safe string escaping, one trailing newline. A run that
 * stopped early adds `summary.incomplete`, why; a run with a `--fail-on` other than `warn` adds
 * `summary.failOn`, the lowest status that counted.
 * Keys are only ever added, never renamed or reordered.
 *
 * Written piece by piece, a finding at a time, so that a report of many thousand findings is never
 * one string in memory; the pieces joined are exactly `json.MarshalIndent` of the whole document.
 */
export function* renderJsonPieces(report: Report): Generator<string> {
  const { ok, info, warn, fail, exitCode, incomplete, failOn } = report.summary;
  yield `{\n${INDENT}"summary": ${goJson({ ok, info, warn, fail, exitCode, incomplete, failOn }, INDENT, INDENT)},\n${INDENT}"findings": `;
  if (report.findings.length === 0) {
    yield '[]\n}\n';
    return;
  }
  const depth = INDENT.repeat(2);
  let separator = '[';
  for (const f of report.findings) {
    yield `${separator}\n${depth}${findingJson(f, depth)}`;
    separator = ',';
  }
  yield `\n${INDENT}]\n}\n`;
}

/** The whole JSON report as one string (see {@link renderJsonPieces}). */
export function renderJson(report: Report): string {
  return [...renderJsonPieces(report)].join('');
}
