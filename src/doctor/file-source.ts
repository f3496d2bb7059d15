/**
 * The source of a run from files (`doctor -f`): the objects of the files stand in for the API server
 * (`cluster/gather/file-api.ts`), gathered through the live run's own projections and views, and judged
 * by every check that needs no probe, at the time the dump recorded (or `--now`). A Kind the files do
 * not hold is "not given": the checks that need it are skipped, and FI001 says so.
 *
 * @module
 */

import { notGivenFindings, notGivenReads } from '../checks/offline-input.ts';
import { CHECKS, DECLARATIONS, activeDeclarations, planRun } from '../checks/registry.ts';
import type { DoctorOptions } from '../cli/options.ts';
import { FileApi } from '../cluster/gather/file-api.ts';
import { gatherClusterState } from '../cluster/gather/gather.ts';
import type { ClusterState } from '../cluster/state/state.ts';
import { InputError } from '../files/input-error.ts';
import { readManifests, type ManifestRead } from '../files/manifests.ts';
import { interruptionOf } from '../text/errors.ts';
import type { RunEnvironment } from './environment.ts';
import type { OpenSource } from './pipeline.ts';

/** The instant the files are judged at, and a warning when their dumps disagree about it. */
function judgedAt(read: ManifestRead, now: Date | undefined, clock: () => Date): { at: Date; warning?: string } {
  if (now !== undefined) return { at: now };
  const times = [...new Set(read.files.flatMap((f) => (f.dumpTakenAt === undefined ? [] : [f.dumpTakenAt.getTime()])))].sort(
    (a, b) => a - b,
  );
  const last = times.at(-1);
  if (last === undefined) return { at: clock() };
  const at = new Date(last);
  if (times.length === 1) return { at };
  return {
    at,
    warning: `the dumps given were taken at ${times.length} different times; ages are judged at the latest, ${at.toISOString()} (--now sets another)`,
  };
}

/** The state without the reads whose Kind the files do not hold. */
function without(state: ClusterState, dropped: ReadonlySet<string>): ClusterState {
  return Object.fromEntries(Object.entries(state).filter(([name]) => !dropped.has(name)));
}

/**
 * Opens the files `options.files` names: reads them under the first attempt's deadline, or says the
 * run was interrupted while it did.
 *
 * @throws InputError when the files cannot be read or hold no Kubernetes object.
 */
export function fileSource(options: DoctorOptions, environment: RunEnvironment): OpenSource {
  return async (first) => {
    const { clock, interrupt } = environment;
    const read = await readManifests(options.files, environment.stdin, first.signal).catch((err: unknown) => {
      if (interruptionOf(interrupt) === undefined) throw err;
      return undefined;
    });
    const stopped = interruptionOf(interrupt);
    if (read === undefined || stopped !== undefined) return { incomplete: `${stopped ?? 'interrupted'} while reading the files` };
    const objects = read.files.flatMap((f) => f.objects);
    const lists = read.files.flatMap((f) => f.lists);
    if (objects.length === 0 && lists.length === 0) throw new InputError('the files named by -f hold no Kubernetes object');
    const warnings: string[] = [];
    const { at, warning } = judgedAt(read, options.now, clock);
    if (warning !== undefined) warnings.push(warning);
    for (const v of FileApi.ignoredVersions(objects)) {
      warnings.push(`ignored ${v.count} ${v.kind} object(s) of ${v.apiVersion}: the checks read ${v.kind} of ${v.wanted}`);
    }
    const namespace = options.namespace === '' ? 'default' : options.namespace;
    const api = new FileApi(objects, lists, namespace);
    for (const twice of api.duplicates.slice(0, 5)) warnings.push(`an object is given more than once, the last one counts: ${twice}`);
    const noProbes = { configOnly: true };
    return {
      checks: activeDeclarations(noProbes, CHECKS),
      async observe(start) {
        const state = await gatherClusterState(api, { reads: planRun(noProbes).reads, namespace: options.namespace }, start.signal);
        const dropped = notGivenReads(Object.keys(state) as (keyof ClusterState)[], api.notGiven);
        const findings = notGivenFindings(activeDeclarations(noProbes, DECLARATIONS), dropped);
        return { input: { state: without(state, dropped), probes: {}, now: at, namespace: options.namespace }, findings, warnings };
      },
    };
  };
}
