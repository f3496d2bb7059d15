import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import type { SourceLine } from '../../files/manifest-documents.ts';
import { PROJECT_URL, VERSION } from '../../version.ts';
import { describeRule, type CodeGuide, type Finding, type Report, type SuppressedFinding } from '../finding.ts';
import { rank, type Status } from '../status.ts';
import { forTerminal } from '../terminal-text.ts';

/**
 * The most results one SARIF run may hold: GitHub code scanning rejects a run with more (and keeps
 * only the 5,000 most severe of those it accepts). A larger report keeps the most severe findings and
 * says in the run how many it left out.
 */
export const MAX_SARIF_RESULTS = 25_000;

/**
 * The most bytes the log may take gzip-compressed: GitHub code scanning rejects a larger upload (10 MB),
 * and a little is kept for the gzip header and the parts of the log around the results.
 */
export const MAX_SARIF_GZIP_BYTES = 9_500_000;

/** How many results are compressed together to measure what they add to the compressed log. */
const MEASURE_BATCH = 500;

/** The key of our fingerprint in `partialFingerprints`: versioned, so that a new scheme never collides with this one. */
export const FINGERPRINT_KEY = 'inferencecacheFinding/v1';

/** The SARIF level of each status; OK findings are no results (they are counted in the run's properties). */
const LEVEL: Readonly<Record<Exclude<Status, 'OK'>, 'error' | 'warning' | 'note'>> = { FAIL: 'error', WARN: 'warning', INFO: 'note' };

/** One finding a result is made of, suppressed or not. */
interface Entry {
  readonly finding: Finding;
  readonly suppressed?: SuppressedFinding['rule'];
}

/**
 * Text from the report as a SARIF plain-text message: controls shown as for a terminal, and the
 * brackets escaped, since SARIF reads `[text](target)` in a message as a link to a location.
 */
export function messageText(text: string): string {
  return forTerminal(text)
    .toString()
    .replace(/\\(?=[[\]])/g, '\\\\')
    .replace(/[[\]]/g, (ch) => `\\${ch}`);
}

/** A file path as a SARIF URI: relative paths stay relative (to the repository root a workflow runs in), each segment percent-encoded. */
export function pathUri(path: string): string {
  const encoded = path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return path.startsWith('/') ? `file://${encoded}` : encoded.replace(/^(?:\.\/)+/, '');
}

/** A friendly rule name as SARIF wants it, one Pascal-case identifier: `ServerTLS` and `TL001` make `ServerTlsTl001`. */
export function pascalName(...parts: readonly string[]): string {
  const words = parts.join(' ').match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [];
  return words.map((w) => (/^\d/.test(w) ? w : `${w.charAt(0).toUpperCase()}${w.slice(1).toLowerCase()}`)).join('');
}

/** The rule of each code: its meaning, hint and docs link, its status's level by default. */
function rulesOf(guides: ReadonlyMap<string, CodeGuide>, extra: readonly string[]): object[] {
  const rules: object[] = [...guides].map(([code, g]) => ({
    id: code,
    name: pascalName(g.checks[0] ?? 'Doctor', code),
    shortDescription: { text: g.meaning },
    fullDescription: { text: g.meaning },
    help: { text: g.hint },
    helpUri: g.docs,
    defaultConfiguration: { level: g.status === 'OK' ? 'none' : LEVEL[g.status] },
    properties: { tags: ['kubernetes', 'inference-cache', ...g.checks] },
  }));
  return [...rules, ...extra.map((code) => ({ id: code }))];
}

/** One finding a result is made of, with its fingerprint. */
interface Chosen extends Entry {
  readonly fingerprint: string;
}

/**
 * Which findings become results, most severe first (FAIL, WARN, INFO, then the suppressed ones, each
 * in emission order), at most {@link MAX_SARIF_RESULTS} of them: OK findings are none. The fingerprint
 * of each is a hash of its code, its resource and how many findings of that code and resource came
 * before it, so that it does not change with the message's details (ages) from one run to the next.
 */
function chosen(report: Report): { entries: Chosen[]; omitted: number } {
  const all: Entry[] = [
    ...report.findings.filter((f) => f.status !== 'OK').map((finding) => ({ finding })),
    ...(report.suppressed ?? []).filter((s) => s.finding.status !== 'OK').map((s) => ({ finding: s.finding, suppressed: s.rule })),
  ];
  const seen = new Map<string, number>();
  const fingerprinted = all.map((e) => {
    const key = `${e.finding.code}\u0000${e.finding.resource ?? ''}`;
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return { ...e, fingerprint: createHash('sha256').update(`${key}\u0000${occurrence}`).digest('hex').slice(0, 32) };
  });
  const priority = (e: Entry) => (e.suppressed === undefined ? 1 + rank(e.finding.status) : 0);
  const sorted = fingerprinted.sort((a, b) => priority(b) - priority(a));
  return { entries: sorted.slice(0, MAX_SARIF_RESULTS), omitted: Math.max(0, sorted.length - MAX_SARIF_RESULTS) };
}

/** The kind of suppression a rule is, in SARIF's terms: an annotation sits on the object, any other rule outside it. */
function suppressionOf(rule: SuppressedFinding['rule']): object {
  const inSource = rule.source.startsWith('annotation ');
  const why = `${describeRule(rule)}${rule.expires === undefined ? '' : `, until ${rule.expires}`}`;
  return { kind: inSource ? 'inSource' : 'external', status: 'accepted', justification: forTerminal(why).toString() };
}

/** Text from the cluster outside a message (a resource's name): its control characters shown, as for a terminal. */
function shown(text: string): string {
  return forTerminal(text).toString();
}

/** The last path segment of a resource (`pod/prod/engine-0` → `engine-0`). */
function nameOf(resource: string): string {
  return resource.slice(resource.lastIndexOf('/') + 1);
}

/** Whether a resource names a Kubernetes object (`kind/namespace/name`, `kind/name`) rather than a URL or a Kind. */
function namesObject(resource: string): boolean {
  return !resource.includes('://') && resource.includes('/');
}

/** Where a result stands: the line of its object's text in the files (else the first file's top), and the resource itself. */
function locationsOf(
  f: Finding,
  report: Report,
  fallback: SourceLine | undefined,
): { locations: object[]; related?: object[]; template?: string } {
  const resource = f.resource ?? '';
  const logical =
    resource === ''
      ? {}
      : {
          logicalLocations: [
            namesObject(resource)
              ? { name: shown(nameOf(resource)), fullyQualifiedName: shown(resource), kind: 'resource' }
              : { fullyQualifiedName: shown(resource), kind: 'resource' },
          ],
        };
  const line = (resource === '' ? undefined : report.locations?.get(resource)) ?? fallback;
  if (line === undefined) return { locations: [logical] };
  const physical = { physicalLocation: { artifactLocation: { uri: pathUri(line.file) }, region: { startLine: line.line } } };
  if (line.template === undefined || report.locations?.get(resource) !== line) return { locations: [{ ...physical, ...logical }] };
  const related = [
    { id: 1, physicalLocation: { artifactLocation: { uri: pathUri(line.template) } }, message: { text: 'the chart template' } },
  ];
  return { locations: [{ ...physical, ...logical }], related, template: line.template };
}

/** The run's summary as its properties hold it: the report's counts, OK included, and its gates. */
function summaryOf(report: Report): object {
  const { ok, info, warn, fail, exitCode, incomplete, failOn, suppressed } = report.summary;
  return {
    ok,
    info,
    warn,
    fail,
    exitCode,
    ...(incomplete === undefined ? {} : { incomplete }),
    ...(failOn === undefined ? {} : { failOn }),
    ...(suppressed === undefined ? {} : { suppressed }),
  };
}

/** The invocation: whether the run finished, its exit code, and notifications of what the log lacks. */
function invocationOf(report: Report, omitted: number, total: number): object {
  const { incomplete, exitCode } = report.summary;
  const notifications: object[] = [];
  if (incomplete !== undefined)
    notifications.push({ level: 'error', message: { text: `The run is incomplete (${messageText(incomplete)}): findings are missing.` } });
  if (omitted > 0)
    notifications.push({
      level: 'warning',
      message: {
        text: `${omitted} of ${total} findings are not in this log, which keeps the most severe within code scanning's limits (${MAX_SARIF_RESULTS} results, 10 MB compressed). The JSON report (-o json) holds them all.`,
      },
    });
  return {
    executionSuccessful: incomplete === undefined,
    exitCode,
    ...(notifications.length === 0 ? {} : { toolExecutionNotifications: notifications }),
  };
}

/** One result, as one line of JSON. */
function resultLine(
  f: Finding,
  rule: SuppressedFinding['rule'] | undefined,
  report: Report,
  fallback: SourceLine | undefined,
  ruleIndex: number | undefined,
  fingerprint: string,
): string {
  const { locations, related, template } = locationsOf(f, report, fallback);
  const from = template === undefined ? '' : ` (rendered from [${messageText(template)}](1))`;
  return JSON.stringify({
    ruleId: f.code,
    ruleIndex,
    kind: 'fail',
    level: LEVEL[f.status as Exclude<Status, 'OK'>],
    message: { text: `${messageText(f.message)}${from}` },
    locations,
    ...(related === undefined ? {} : { relatedLocations: related }),
    partialFingerprints: { [FINGERPRINT_KEY]: fingerprint },
    ...(rule === undefined ? {} : { suppressions: [suppressionOf(rule)] }),
    properties: { status: f.status, check: f.check },
  });
}

/**
 * The report as SARIF 2.1.0 (one run), for GitHub code scanning and other readers of static-analysis
 * results. One rule per code, with its meaning, hint and docs link, its status's level by default.
 * Every finding that is not OK is a result at its status's level (FAIL error, WARN warning, INFO note);
 * a suppressed one carries the rule that silenced it as a `suppression`. Each result names its
 * resource as a logical location; from files (`doctor -f`) also the file and line of the object's
 * text (a `helm template` document's template as a related location), and a finding about nothing in
 * the files stands on the first file's first object. `partialFingerprints` hold a hash of code,
 * resource and occurrence, so that a run over the same state matches the alerts of the last one
 * whatever the messages' details (ages) say. The run's properties hold the summary, OK counts included.
 * At most {@link MAX_SARIF_RESULTS} results; a larger report says in a notification how many it left out.
 */
export function* renderSarif(report: Report): Generator<string> {
  const guides = report.guides ?? new Map<string, CodeGuide>();
  const { entries, omitted } = chosen(report);
  const unknown = [...new Set(entries.map((e) => e.finding.code).filter((code) => !guides.has(code)))];
  const rules = rulesOf(guides, unknown);
  const ruleIndex = new Map([...guides.keys(), ...unknown].map((code, i) => [code, i]));
  const fallback = report.locations === undefined ? undefined : report.locations.values().next().value;
  const driver = {
    name: 'inferencecache-doctor',
    // Run from source the version is `dev`, which no reader takes for a version: a prerelease of nothing.
    semanticVersion: /^\d+\.\d+\.\d+/.test(VERSION) ? VERSION : `0.0.0-${VERSION}`,
    informationUri: PROJECT_URL,
    rules,
  };
  const header = `{\n  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",\n  "version": "2.1.0",\n  "runs": [\n    {\n      "tool": {"driver": ${JSON.stringify(driver)}},\n      "results": [`;
  yield header;
  const lines = entries.map(
    ({ finding, suppressed, fingerprint }) =>
      () =>
        resultLine(finding, suppressed, report, fallback, ruleIndex.get(finding.code), fingerprint),
  );
  // The compressed size is measured batch by batch: a batch that would pass the limit is measured
  // result by result (each alone compresses worse than in the stream, so the limit holds), and the
  // results past the limit are left out, counted in the run's notification.
  let compressed = deflateRawSync(header).length;
  let written = 0;
  let separator = '\n';
  for (let from = 0; from < lines.length && written === from; from += MEASURE_BATCH) {
    const batch = lines.slice(from, from + MEASURE_BATCH).map((line) => line());
    const size = deflateRawSync(batch.join(',\n')).length;
    const fits =
      compressed + size <= MAX_SARIF_GZIP_BYTES
        ? batch
        : batch.filter((line) => (compressed += deflateRawSync(line).length) <= MAX_SARIF_GZIP_BYTES);
    if (fits === batch) compressed += size;
    for (const line of fits) {
      yield `${separator}        ${line}`;
      separator = ',\n';
    }
    written += fits.length;
    if (fits.length < batch.length) break;
  }
  const over = lines.length - written;
  yield written === 0 ? ']' : '\n      ]';
  yield `,\n      "invocations": [${JSON.stringify(invocationOf(report, omitted + over, written + omitted + over))}],\n`;
  yield `      "properties": ${JSON.stringify({ summary: summaryOf(report), omitted: omitted + over })}\n`;
  yield '    }\n  ]\n}\n';
}
