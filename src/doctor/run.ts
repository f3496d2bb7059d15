/**
 * One doctor run: load the kubeconfig and the suppression rules, then attempt (gather, probe, judge),
 * apply the suppressions (written and annotated) and build the report, incomplete when interrupted.
 * Under `--wait`, attempt again after a growing pause while a finding counts and the wait lasts.
 *
 * @module
 */

import { codeGuides } from '../checks/codes.ts';
import { planRun } from '../checks/registry.ts';
import type { DoctorOptions } from '../cli/options.ts';
import { KubeApi } from '../cluster/api.ts';
import { loadKubeConfig } from '../cluster/kubeconfig.ts';
import { readDoctorPod } from '../cluster/pod-identity.ts';
import { EXIT_CODES } from '../report/exit-codes.ts';
import { exitCodeOf, makeReport, type Attempt, type Finding } from '../report/finding.ts';
import { pause } from '../probes/deadline.ts';
import { settleWindowFrom } from '../probes/settle.ts';
import { annotationRules } from '../suppress/annotations.ts';
import { SuppressionStage, type SuppressionOutcome } from '../suppress/apply.ts';
import type { SuppressionRule } from '../suppress/rule.ts';
import { interruptionOf } from '../text/errors.ts';
import { attempt, type AttemptContext, type AttemptStart } from './attempt.ts';
import type { RunEnvironment, RunResult } from './environment.ts';
import { writtenRules } from './suppression-rules.ts';
import { inSlices } from './time-slices.ts';
import { countedByCode, pauseBefore, progressLine } from './wait.ts';

/**
 * Applies the suppression rules in time slices (many rules against many findings can take seconds); an
 * interrupt leaves the findings not yet tried as they are, for the incomplete report.
 */
export async function suppress(
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

/** Ends every read and probe when `--timeout` passes or the process is interrupted, whichever is first. */
export function overallSignal(timeoutMs: number, interrupt: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return interrupt === undefined ? timeout : AbortSignal.any([timeout, interrupt]);
}

/**
 * Runs the doctor. The first attempt's `--timeout` counts from the start of the run, loading included;
 * each later attempt has its own. The last attempt's report is the run's.
 *
 * @throws KubeConfigError when there is no cluster to talk to; UsageError for unusable suppression rules.
 */
export async function runDoctor(options: DoctorOptions, environment: RunEnvironment): Promise<RunResult> {
  if (options.files.length > 0) {
    const { runFromFiles } = await import('./offline.ts');
    return runFromFiles(options, environment);
  }
  const { clock, files, interrupt } = environment;
  const elapsedSince = (start: Date) => clock().getTime() - start.getTime();
  const startAttempt = (): AttemptStart => ({ now: clock(), signal: overallSignal(options.timeoutMs, interrupt) });
  const first = startAttempt();
  const guides = codeGuides(options.docsBase);
  const written = await writtenRules(options, guides, first.signal);
  const api = new KubeApi(await loadKubeConfig(options, environment.env, files.serviceAccountDir, first.signal), environment.env);
  const self = await readDoctorPod(environment.pod, options.podLabelsFile ?? files.podLabels, first.signal);
  // In a pod the doctor is the container's process, so its start is the container's.
  const settle = self === undefined || environment.started === undefined ? undefined : settleWindowFrom(environment.started);
  const context: AttemptContext = { options, api, plan: planRun(options), self, files, clock, interrupt, settle };
  const waiting = options.waitMs > 0;
  const attempts: Attempt[] = [];
  for (let start = first; ; start = startAttempt()) {
    const { findings, state, warnings } = await attempt(context, start);
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
      });
      return { report, warnings };
    }
  }
}
