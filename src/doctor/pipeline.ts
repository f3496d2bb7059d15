/**
 * The one judging pipeline of every doctor run, live or from files: the written suppression rules are
 * loaded, the run's source of objects is opened, and each attempt observes (gathers, and probes when
 * the source does), judges in time slices, applies the suppressions (written and annotated), and makes
 * the report with the run's gates. Under `--wait` it attempts again after a growing pause while a
 * finding counts and the wait lasts. Which source a run has, the cluster (`cluster-source.ts`) or the
 * files of `doctor -f` (`file-source.ts`), the doctor command chooses; nothing here knows.
 *
 * @module
 */

import { codeGuides } from '../checks/codes.ts';
import type { Check } from '../checks/check.ts';
import { judgeByCheck } from '../checks/registry.ts';
import type { CheckInput } from '../checks/run.ts';
import type { DoctorOptions } from '../cli/options.ts';
import type { SourceLine } from '../files/manifest-documents.ts';
import type { ClusterState } from '../cluster/state/state.ts';
import { pause } from '../probes/deadline.ts';
import { EXIT_CODES } from '../report/exit-codes.ts';
import { exitCodeOf, makeReport, type Attempt, type Finding } from '../report/finding.ts';
import { annotationRules } from '../suppress/annotations.ts';
import { SuppressionStage, type SuppressionOutcome } from '../suppress/apply.ts';
import type { SuppressionRule } from '../suppress/rule.ts';
import { interruptionOf } from '../text/errors.ts';
import { startAttempt, type AttemptStart } from './deadline.ts';
import type { RunEnvironment, RunResult } from './environment.ts';
import { writtenRules } from './suppression-rules.ts';
import { inSlices } from './time-slices.ts';
import { countedByCode, pauseBefore, progressLine } from './wait.ts';

/** What one attempt observed: the checks' input, findings about the input itself, warnings for stderr. */
export interface Observation {
  readonly input: CheckInput;
  /** Findings the source makes about what it was given (FI001 for a Kind the files lack), before the checks'. */
  readonly findings: readonly Finding[];
  readonly warnings: readonly string[];
  /** Where the objects stand in the files they came from, by resource; a run from files only. */
  readonly locations?: ReadonlyMap<string, SourceLine>;
}

/** Where a run's objects come from, once opened: the checks it judges, and how one attempt observes. */
export interface RunSource {
  /** The checks this run judges, in run order. */
  readonly checks: readonly Check[];
  /** Gathers (and probes, when the source probes) for one attempt started at `start`. */
  observe(start: AttemptStart): Promise<Observation>;
}

/**
 * Opens a run's source under the first attempt's deadline: a source, or why the run ended before it
 * had one (interrupted while reading its input).
 *
 * @throws KubeConfigError, InputError or UsageError when the run cannot start (exit 3).
 */
export type OpenSource = (first: AttemptStart) => Promise<RunSource | { readonly incomplete: string }>;

/**
 * Applies the suppression rules in time slices (many rules against many findings can take seconds); an
 * interrupt leaves the findings not yet tried as they are, for the incomplete report.
 */
async function suppress(
  findings: readonly Finding[],
  rules: readonly SuppressionRule[],
  clock: () => Date,
  interrupt: AbortSignal | undefined,
): Promise<SuppressionOutcome> {
  if (rules.length === 0) return { findings: [...findings], suppressed: [] };
  const stage = new SuppressionStage(rules, clock());
  await inSlices(stage.steps(findings), interrupt, clock);
  return stage.finish(findings.slice(stage.taken));
}

/** Whether some list of the state was read (the API server answered at least that). */
function someListRead(state: ClusterState): boolean {
  return Object.values(state).some((read: unknown) => typeof read === 'object' && read !== null && 'ok' in read && read.ok === true);
}

/** The findings of one attempt before suppression: the source's own, then each check's, judged check by check. */
async function judged(observation: Observation, checks: readonly Check[], clock: () => Date, interrupt: AbortSignal | undefined) {
  const findings: Finding[] = [...observation.findings];
  // Check by check, so that the run notices an interrupt between two (see time-slices.ts).
  const judging = function* () {
    for (const found of judgeByCheck(observation.input, checks)) {
      findings.push(...found);
      yield;
    }
  };
  await inSlices(judging(), interrupt, clock);
  return findings;
}

/**
 * Runs the doctor on the source `open` gives. The first attempt's `--timeout` counts from the start of
 * the run, loading included; each later attempt has its own. The last attempt's report is the run's.
 *
 * @throws UsageError for unusable suppression rules; whatever `open` throws.
 */
export async function runPipeline(options: DoctorOptions, environment: RunEnvironment, open: OpenSource): Promise<RunResult> {
  const { clock, interrupt } = environment;
  const elapsedSince = (start: Date) => clock().getTime() - start.getTime();
  const first = startAttempt(clock, options.timeoutMs, interrupt);
  const guides = codeGuides(options.docsBase);
  const written = await writtenRules(options, guides, first.signal);
  const source = await open(first);
  if ('incomplete' in source) return { report: makeReport([], { incomplete: source.incomplete, guides }), warnings: [] };
  const waiting = options.waitMs > 0;
  const attempts: Attempt[] = [];
  for (let start = first; ; start = startAttempt(clock, options.timeoutMs, interrupt)) {
    const observation = await source.observe(start);
    environment.collectGarbage?.();
    const { state } = observation.input;
    const warnings = [...observation.warnings];
    const findings = await judged(observation, source.checks, clock, interrupt);
    if (state.namespaces?.ok === false && someListRead(state)) {
      // Said only when other reads got through: an unreachable API server is reported by the checks.
      warnings.push(`suppression annotations on Namespaces were not applied: reading the Namespaces failed: ${state.namespaces.error}`);
    }
    const outcome = await suppress(findings, [...written, ...annotationRules(state)], clock, interrupt);
    const incomplete = interruptionOf(interrupt);
    const exitCode = exitCodeOf(outcome.findings, options.failOn);
    const counted = countedByCode(outcome.findings, options.failOn);
    const done: Attempt = {
      attempt: attempts.length + 1,
      elapsedMs: elapsedSince(first.now),
      exitCode: incomplete === undefined ? exitCode : EXIT_CODES.interrupted,
      counted: [...counted.keys()],
    };
    attempts.push(done);
    const remaining = options.waitMs - elapsedSince(first.now);
    const again = waiting && incomplete === undefined && exitCode !== EXIT_CODES.healthy && remaining > 0;
    const pauseMs = again ? Math.min(remaining, pauseBefore(done.attempt + 1, elapsedSince(start.now))) : undefined;
    if (waiting && incomplete === undefined) await environment.progress?.(progressLine(done, counted, options.failOn, pauseMs));
    if (pauseMs !== undefined) await pause(pauseMs, interrupt);
    const stopped = interruptionOf(interrupt);
    if (pauseMs === undefined || stopped !== undefined) {
      const why = incomplete ?? (stopped === undefined ? undefined : `${stopped} while waiting after attempt ${done.attempt}`);
      const report = makeReport(outcome.findings, {
        incomplete: why,
        failOn: options.failOn,
        suppressed: outcome.suppressed,
        ...(waiting ? { attempts } : {}),
        guides,
        locations: observation.locations,
      });
      return { report, warnings };
    }
  }
}
