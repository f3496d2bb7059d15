// One fault case, run the way an operator would meet it: the bundle in every output format of the report, and
// the guarantees every run must keep whatever went wrong (docs/safety.md): a valid report in each
// format (or, when the doctor could not run, one line on stderr and exit 3), the right exit code, done
// within --timeout plus one second, no stack trace, no line Node prints itself, no raw control
// character from the cluster or a server, and no byte of a token or secret anywhere.
import { expect } from 'vitest';
import { formatsOf, type FormatOf } from '../../../src/report/output-formats.ts';
import { runBundle, type BundleRun } from '../bundle.ts';
import { validateJunit, xmllintMissing } from '../junit/validate.ts';
import { sarifSchemaErrors } from '../sarif/validate.ts';
import type { PodMounts } from '../pod-fs.ts';
import { expectNoNodeLines } from './node-lines.ts';

/** The formats every case runs in: every format of the doctor's report (report/output-formats.ts). */
export const FORMATS = formatsOf('doctor');
export type Format = FormatOf<'doctor'>;

/**
 * One case's runs: the bundle in every format, and the single executable in JSON once the suite has
 * named it ({@link alsoRunExecutable}), held to the same guarantees.
 */
export type FaultRuns = Readonly<Record<Format, BundleRun>> & { readonly executable?: BundleRun };

/** The single executable every case also runs, in JSON; unset, the cases run the bundle alone. */
let executable: string | undefined;

/** How many runs one case makes: one per format, and the executable's. */
export function runsPerCase(): number {
  return FORMATS.length + (executable === undefined ? 0 : 1);
}

/** Has every later case run `exe` (the amd64 single executable) as well as the bundle. */
export function alsoRunExecutable(exe: string): void {
  executable = exe;
}

/** A finding of the JSON report. */
export interface ReportFinding {
  readonly code: string;
  readonly status: string;
  readonly check: string;
  readonly resource?: string;
  readonly message: string;
}

export interface ReportDocument {
  readonly summary: {
    readonly ok: number;
    readonly info: number;
    readonly warn: number;
    readonly fail: number;
    readonly exitCode: number;
    readonly incomplete?: string;
  };
  readonly findings: readonly ReportFinding[];
}

/** Every character that must never reach a terminal raw (the newline that ends a line excepted). */
// eslint-disable-next-line no-control-regex -- finding control characters is what this is for
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Signs of a crash: a JavaScript stack frame or an unhandled error. */
const STACK_TRACE = /\n\s+at .+:\d+:\d+|Unhandled|uncaught|\bat .*\.mjs:\d+/i;

/** How many formats of one case run at once. */
const IN_PARALLEL = 4;

/** Runs `args` (after `doctor`, with the format added) in every format, a few side by side. */
export async function runInAllFormats(
  args: readonly string[],
  opts: { readonly env?: NodeJS.ProcessEnv; readonly pod?: PodMounts; readonly killAfterMs?: number } = {},
): Promise<FaultRuns> {
  const env = { PATH: process.env['PATH'] ?? '', ...opts.env };
  const run = (format: Format, command?: readonly string[]) =>
    runBundle(['doctor', ...args, '-o', format], {
      env,
      ...(opts.pod === undefined ? {} : { pod: opts.pod }),
      ...(command === undefined ? {} : { command }),
      timeoutMs: opts.killAfterMs ?? 60_000,
    });
  // A few at a time: seven bundles starting at once on two cores would hold one another past the
  // deadline each case times, which is the doctor's to keep, not the machine's. The executable's run
  // fills the second batch (three formats), so it adds no batch.
  const jobs: (() => Promise<BundleRun>)[] = FORMATS.map((format) => () => run(format));
  if (executable !== undefined) {
    const exe = executable;
    jobs.push(() => run('json', [exe]));
  }
  const runs: BundleRun[] = [];
  for (let i = 0; i < jobs.length; i += IN_PARALLEL) runs.push(...(await Promise.all(jobs.slice(i, i + IN_PARALLEL).map((job) => job()))));
  const byFormat = Object.fromEntries(FORMATS.map((format, i) => [format, runs[i] as BundleRun])) as Record<Format, BundleRun>;
  return executable === undefined ? byFormat : { ...byFormat, executable: runs[FORMATS.length] as BundleRun };
}

export interface Expectation {
  readonly exitCode: number;
  /** The run's --timeout in ms: each run must be done within it plus one second. */
  readonly timeoutMs: number;
  /** Strings that must appear nowhere (tokens, secret contents). */
  readonly secrets: readonly string[];
  /** Codes the report must hold (in any order, among others). */
  readonly codes?: readonly string[];
  /** Codes the report must not hold. */
  readonly absent?: readonly string[];
}

function expectHuman(stdout: string): void {
  const lines = stdout.split('\n');
  expect(lines[0]).toBe('inferencecache doctor');
  expect(lines.at(-1)).toBe('');
  expect(lines.filter((line) => line.startsWith('Summary: '))).toHaveLength(1);
  expect(lines.at(-2)).toMatch(/^Summary: \d+ OK, \d+ INFO, \d+ WARN, \d+ FAIL {2}\(exit \d\)$/);
}

function expectTable(stdout: string): void {
  const [header, ...rows] = stdout.split('\n').slice(0, -1);
  expect(header).toMatch(/^STATUS +CODE +CHECK +RESOURCE +MESSAGE$/);
  for (const row of rows) expect(row).toMatch(/^(OK|INFO|WARN|FAIL) +[A-Z]{2,3}\d{3} +\S+ +\S+ +\S/);
}

/** Why xmllint cannot validate the JUnit runs here ('' when it can; under CI it must). */
const NO_XMLLINT = xmllintMissing();

function expectJunit(stdout: string): void {
  expect(stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
  if (NO_XMLLINT === '') expect(validateJunit(stdout)).toMatchObject({ code: 0 });
}

/** SARIF 2.1.0 by its schema, every result with a declared rule and a location. */
function expectSarif(stdout: string): void {
  const doc = JSON.parse(stdout) as {
    runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; locations: unknown[] }[] }[];
  };
  expect(sarifSchemaErrors(doc)).toEqual([]);
  const [run] = doc.runs;
  const rules = new Set(run?.tool.driver.rules.map((r) => r.id));
  for (const r of run?.results ?? []) {
    expect(rules.has(r.ruleId), `rule ${r.ruleId}`).toBe(true);
    expect(r.locations.length).toBe(1);
  }
}

/** Markdown opens with its heading, and holds no HTML but the few tags it writes itself. */
function expectMarkdown(stdout: string): void {
  expect(stdout).toMatch(/^## inferencecache doctor: \d+ FAIL, \d+ WARN, \d+ INFO, \d+ OK \(exit \d\)\n/);
  const tags = [...stdout.matchAll(/(?<!\\)<\/?([a-zA-Z][^\s/>]*)/g)].map((m) => m[1]);
  expect(tags.filter((t) => !['br', 'details', 'summary'].includes(t ?? ''))).toEqual([]);
}

/** One HTML document: our one script, no inline event handler. */
function expectHtml(stdout: string): void {
  expect(stdout).toMatch(/^<!doctype html>/i);
  expect(stdout.match(/<script\b/gi) ?? []).toHaveLength(1);
  expect(stdout).not.toMatch(/<[^>]*\son[a-z]+\s*=/i);
}

/** How the output of a run that finished is checked, per format (JSON below, with the report's content). */
const WELL_FORMED: Readonly<Record<Format, (stdout: string) => void>> = {
  human: expectHuman,
  table: expectTable,
  junit: expectJunit,
  json: (stdout) => expect(() => JSON.parse(stdout) as unknown).not.toThrow(),
  sarif: expectSarif,
  markdown: expectMarkdown,
  html: expectHtml,
};

/** Asserts every guarantee of a run, and returns the parsed JSON report (undefined for exit 3). */
export function expectSafe(runs: FaultRuns, expectation: Expectation): ReportDocument | undefined {
  for (const [name, run] of Object.entries(runs) as [Format | 'executable', BundleRun][]) {
    const format: Format = name === 'executable' ? 'json' : name;
    const where = name === 'executable' ? 'the single executable (json output)' : `${format} output`;
    expect(run.code, `${where}: exit code (stderr: ${run.stderr.slice(0, 400)})`).toBe(expectation.exitCode);
    expect(run.elapsedMs, `${where}: done within --timeout + 1 s`).toBeLessThan(expectation.timeoutMs + 1_000);
    expect(run.stderr, `${where}: stderr`).not.toMatch(STACK_TRACE);
    expectNoNodeLines(run.stderr, where);
    for (const secret of expectation.secrets) {
      expect(run.stdout.includes(secret), `${where}: a secret in stdout`).toBe(false);
      expect(run.stderr.includes(secret), `${where}: a secret in stderr`).toBe(false);
    }
    expect(RAW_CONTROL.test(run.stderr), `${where}: a raw control character in stderr`).toBe(false);
    if (format !== 'json') expect(RAW_CONTROL.test(run.stdout), `${where}: a raw control character`).toBe(false);
    if (expectation.exitCode === 3) {
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: [^\n]+\n$/);
      continue;
    }
    WELL_FORMED[format](run.stdout);
  }
  if (expectation.exitCode === 3) return undefined;
  if (runs.executable !== undefined)
    expectReport(JSON.parse(runs.executable.stdout) as ReportDocument, expectation, 'the single executable');
  return expectReport(JSON.parse(runs.json.stdout) as ReportDocument, expectation, 'the bundle');
}

/** The JSON report's shape and the codes the case expects in it. */
function expectReport(report: ReportDocument, expectation: Expectation, who: string): ReportDocument {
  expect(report.summary.exitCode, `${who}: exit code in the summary`).toBe(expectation.exitCode);
  for (const f of report.findings)
    expect(Object.keys(f)).toEqual([
      'code',
      'status',
      'check',
      ...(f.resource === undefined ? [] : ['resource']),
      'message',
      ...(f.status === 'OK' ? [] : ['hint', 'docs']),
    ]);
  const codes = report.findings.map((f) => f.code);
  for (const code of expectation.codes ?? []) expect(codes, `${who}: expected ${code}`).toContain(code);
  for (const code of expectation.absent ?? []) expect(codes, `${who}: unexpected ${code}`).not.toContain(code);
  return report;
}
