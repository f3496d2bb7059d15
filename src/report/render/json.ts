import { guideOf, type Attempt, type CodeGuide, type Finding, type Report, type SuppressedFinding } from '../finding.ts';
import { formatGoDuration } from '../../go/duration.ts';
import { goJson, goJsonString } from '../../go/json.ts';

const INDENT = '  ';

/**
 * A finding as the JSON report writes it at `depth`: `resource` left out when empty; `hint` and
 * `docs` after the message when `guide` is given (the report gives it for findings that are not OK).
 * Written out by hand rather than through the generic `goJson`, which builds entry arrays for every
 * object: a report holds tens of thousands of findings. A test keeps the two equal.
 */
export function findingJson(f: Finding, depth: string, guide?: CodeGuide, tail = ''): string {
  const inner = `,\n${depth}${INDENT}`;
  const resource = f.resource === undefined || f.resource === '' ? '' : `${inner}"resource": ${goJsonString(f.resource)}`;
  const advice = guide === undefined ? '' : `${inner}"hint": ${fixedJson(guide.hint)}${inner}"docs": ${fixedJson(guide.docs)}`;
  return (
    `{\n${depth}${INDENT}"code": ${fixedJson(f.code)}${inner}"status": ${fixedJson(f.status)}` +
    `${inner}"check": ${fixedJson(f.check)}${resource}${inner}"message": ${goJsonString(f.message)}${advice}${tail}\n${depth}}`
  );
}

/** The encodings of the strings every finding of a code repeats, each made once. */
const FIXED = new Map<string, string>();

/**
 * {@link goJsonString} of a string from a fixed set (a code, a status, a check's name, a code's hint or
 * docs link), remembered: a report of 70,000 findings repeats a few hundred of them.
 */
function fixedJson(s: string): string {
  let encoded = FIXED.get(s);
  if (encoded === undefined) {
    encoded = goJsonString(s);
    if (FIXED.size < 4096) FIXED.set(s, encoded);
  }
  return encoded;
}

/** A suppressed finding: the finding's fields, then `suppressedBy`, the rule that matched it. */
function suppressedJson(s: SuppressedFinding, depth: string): string {
  const { source, match, reason, expires } = s.rule;
  const rule = goJson({ source, match, reason, expires }, INDENT, `${depth}${INDENT}`);
  return findingJson(s.finding, depth, undefined, `,\n${depth}${INDENT}"suppressedBy": ${rule}`);
}

function attemptJson(a: Attempt): { attempt: number; elapsed: string; exitCode: number; counted: string[] } {
  return { attempt: a.attempt, elapsed: formatGoDuration(a.elapsedMs), exitCode: a.exitCode, counted: [...a.counted] };
}

/** `items` as a JSON array member of the document, one element at a time. */
function* arrayPieces<T>(items: readonly T[], element: (item: T, depth: string) => string): Generator<string> {
  if (items.length === 0) {
    yield '[]';
    return;
  }
  const depth = INDENT.repeat(2);
  let separator = '[';
  for (const item of items) {
    yield `${separator}\n${depth}${element(item, depth)}`;
    separator = ',';
  }
  yield `\n${INDENT}]`;
}

/**
 * The JSON report (docs/upstream.md ): `summary` {ok, info, warn, fail, exitCode} then
 * `findings` [{code, status, check, resource, message}] in emission order, `resource` omitted when
 * empty, two-space indentation, Go's HTML-safe string escaping, one trailing newline. Our additions,
 * each present only when it applies: `summary.incomplete` (why the run stopped early),
 * `summary.failOn` (a `--fail-on` other than `warn`), `summary.suppressed` (how many findings a rule
 * silenced); `hint` and `docs` on every finding that is not OK; `suppressed`, the silenced findings
 * each with the rule that matched; `attempts`, the attempts of a `--wait` run.
 * Keys are only ever added, never renamed or reordered (schema/report.schema.json describes them).
 *
 * Written piece by piece, a finding at a time, so that a report of many thousand findings is never
 * one string in memory; the pieces joined are exactly `json.MarshalIndent` of the whole document.
 */
export function* renderJsonPieces(report: Report): Generator<string> {
  const { ok, info, warn, fail, exitCode, incomplete, failOn, suppressed } = report.summary;
  const summary = goJson({ ok, info, warn, fail, exitCode, incomplete, failOn, suppressed }, INDENT, INDENT);
  yield `{\n${INDENT}"summary": ${summary},\n${INDENT}"findings": `;
  yield* arrayPieces(report.findings, (f, depth) => findingJson(f, depth, guideOf(report, f)));
  if (report.suppressed !== undefined) {
    yield `,\n${INDENT}"suppressed": `;
    yield* arrayPieces(report.suppressed, suppressedJson);
  }
  if (report.attempts !== undefined) {
    yield `,\n${INDENT}"attempts": ${goJson(report.attempts.map(attemptJson), INDENT, INDENT)}`;
  }
  yield '\n}\n';
}

/** The whole JSON report as one string (see {@link renderJsonPieces}). */
export function renderJson(report: Report): string {
  return [...renderJsonPieces(report)].join('');
}
