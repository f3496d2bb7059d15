import type { SourceLine } from '../files/manifest-documents.ts';
import { EXIT_CODES, type ReportExitCode } from './exit-codes.ts';
import { STATUSES, rank, type Status } from './status.ts';

/**
 * One verdict of one check about one resource. The key order is the JSON contract:
 * code, status, check, resource (absent when the finding is about no single resource), message.
 * Which codes and checks exist is the checks' business (`checks/registry.ts`); the report carries them
 * as they come.
 */
export interface Finding {
  readonly code: string;
  readonly status: Status;
  readonly check: string;
  readonly resource?: string;
  readonly message: string;
}

/** Counts per status, and the exit code the report implies. */
export interface Summary {
  readonly ok: number;
  readonly info: number;
  readonly warn: number;
  readonly fail: number;
  readonly exitCode: ReportExitCode;
  /**
   * Why the run stopped before it finished (`interrupted by SIGTERM`); absent for a finished run. An
   * incomplete report lacks findings, so its exit code is `interrupted` whatever it holds.
   */
  readonly incomplete?: string;
  /**
   * The lowest status that counted for the exit code (`--fail-on`), when it is not the default
   * {@link DEFAULT_FAIL_ON}: a report read later must say why its WARNs did not fail it.
   */
  readonly failOn?: Status;
  /** How many findings a suppression rule silenced (listed apart, never counted); absent when none. */
  readonly suppressed?: number;
}

/** The `--fail-on` of a run that names none: WARN and FAIL count, as upstream's exit codes do. */
export const DEFAULT_FAIL_ON: Status = 'WARN';

/**
 * What an operator does about a code and where the docs explain it, as the report carries them: the
 * renderers print them under every finding that is not OK. From the code table (`checks/codes.ts`).
 */
export interface CodeGuide {
  /** The status every finding of the code has: a rule catalogue's default level. */
  readonly status: Status;
  /** The checks that may emit the code, in run order. */
  readonly checks: readonly string[];
  /** What a finding of the code means, in one line: for a rule catalogue or a legend, beside the hint. */
  readonly meaning: string;
  readonly hint: string;
  /** The code's section of docs/codes.md, under `--docs-base` when given. */
  readonly docs: string;
}

/**
 * The rule that silenced a finding, as the report names it: where it came from (`--suppress`, a line
 * of the `--suppress-file`, or the annotation of an object), what it matches, and why.
 */
export interface SuppressionRef {
  /** `--suppress`, `<file>:<line>`, or `annotation on <resource>`. */
  readonly source: string;
  /** The rule as written: `CODE` or `CODE=RESOURCE-GLOB`. */
  readonly match: string;
  readonly reason?: string;
  /** The rule's `expires` date, as written, when it has one. */
  readonly expires?: string;
}

/** A rule as the plain-text formats name it: where it came from, what it matches, and its reason (`--suppress: CB001=cachebackend/prod/old`). */
export function describeRule(rule: SuppressionRef): string {
  return `${rule.source}: ${rule.match}${rule.reason === undefined ? '' : ` (${rule.reason})`}`;
}

/** A finding a suppression rule silenced: listed apart from the findings, never counted. */
export interface SuppressedFinding {
  readonly finding: Finding;
  readonly rule: SuppressionRef;
}

/** One attempt of a `--wait` run: when it ended, its exit code, and the codes that still counted. */
export interface Attempt {
  readonly attempt: number;
  /** Since the run started, in milliseconds. */
  readonly elapsedMs: number;
  readonly exitCode: ReportExitCode;
  /** The distinct codes of the findings that counted for the exit code, in emission order. */
  readonly counted: readonly string[];
}

/** The findings of one run, in emission order, with their summary. */
export interface Report {
  readonly summary: Summary;
  /** Every finding no rule suppressed: these are counted and decide the exit code. */
  readonly findings: readonly Finding[];
  /** The findings a rule suppressed, apart; absent when none was. */
  readonly suppressed?: readonly SuppressedFinding[];
  /** The attempts of a `--wait` run, first to last; absent without `--wait`. */
  readonly attempts?: readonly Attempt[];
  /** Hint and docs per code, for the renderers; absent from a report built without the code table. */
  readonly guides?: ReadonlyMap<string, CodeGuide>;
  /**
   * Where the objects of a run from files stand in them, by the resource findings name (SARIF points
   * pull-request annotations there); absent for a live run. Never part of the JSON report.
   */
  readonly locations?: ReadonlyMap<string, SourceLine>;
}

/** The guide the report gives a finding: its code's hint and docs, for findings that are not OK. */
export function guideOf(report: Report, f: Finding): CodeGuide | undefined {
  return f.status === 'OK' ? undefined : report.guides?.get(f.code);
}

/** What {@link makeReport} takes besides the findings. */
export interface ReportOptions {
  /** Why the run stopped early; absent for a finished run. */
  readonly incomplete?: string | undefined;
  /** `--fail-on`; {@link DEFAULT_FAIL_ON} when absent. */
  readonly failOn?: Status | undefined;
  readonly suppressed?: readonly SuppressedFinding[] | undefined;
  readonly attempts?: readonly Attempt[] | undefined;
  readonly guides?: ReadonlyMap<string, CodeGuide> | undefined;
  readonly locations?: ReadonlyMap<string, SourceLine> | undefined;
}

/**
 * The exit code of a set of findings, counting only those at or above `failOn`: `failures` when a FAIL
 * counts, else `warnings` when any finding counts (a WARN; or, below the default threshold, an INFO or
 * OK), else `healthy`.
 */
export function exitCodeOf(
  findings: readonly Finding[],
  failOn: Status = DEFAULT_FAIL_ON,
): typeof EXIT_CODES.healthy | typeof EXIT_CODES.warnings | typeof EXIT_CODES.failures {
  const floor = rank(failOn);
  const worst = findings.reduce((w, f) => Math.max(w, rank(f.status)), -1);
  if (worst < floor) return EXIT_CODES.healthy;
  return worst >= rank('FAIL') ? EXIT_CODES.failures : EXIT_CODES.warnings;
}

/**
 * Builds the report: findings kept in emission order, counts for all four statuses, the exit code
 * with `failOn` as the threshold (named in the summary when it is not the default), how many findings
 * were suppressed (when any were), and, for a run that stopped early, why it is incomplete.
 */
export function makeReport(findings: readonly Finding[], options: ReportOptions = {}): Report {
  const { incomplete, failOn = DEFAULT_FAIL_ON, suppressed, attempts, guides, locations } = options;
  const count = (s: Status) => findings.filter((f) => f.status === s).length;
  const [ok, info, warn, fail] = STATUSES.map(count) as [number, number, number, number];
  const summary: Summary = {
    ok,
    info,
    warn,
    fail,
    exitCode: incomplete === undefined ? exitCodeOf(findings, failOn) : EXIT_CODES.interrupted,
    ...(incomplete === undefined ? {} : { incomplete }),
    ...(failOn === DEFAULT_FAIL_ON ? {} : { failOn }),
    ...(suppressed === undefined || suppressed.length === 0 ? {} : { suppressed: suppressed.length }),
  };
  return {
    summary,
    findings,
    ...(suppressed === undefined || suppressed.length === 0 ? {} : { suppressed }),
    ...(attempts === undefined ? {} : { attempts }),
    ...(guides === undefined ? {} : { guides }),
    ...(locations === undefined ? {} : { locations }),
  };
}
