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
import { KINDS } from '../cluster/kinds/kinds.ts';
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

/**
 * The namespace the files are judged in: `-n` when the files cover it, else the one namespace every
 * dump given was taken of (with a warning), else all namespaces. Only dumps say what they cover (their
 * headline); a file that is not one may hold any namespace.
 *
 * @throws InputError when every file is a dump and none covers the namespace `-n` names: judged
 *   there, every list would be empty and read as a namespace without objects, or one that does not exist.
 */
function judgedScope(read: ManifestRead, namespace: string): { namespace: string; warning?: string } {
  const scopes = read.files.map((f) => f.dumpScope);
  if (scopes.some((scope) => scope === undefined || scope === '')) return { namespace };
  const covered = [...new Set(scopes as string[])].sort();
  const list = covered.map((ns) => JSON.stringify(ns)).join(', ');
  if (namespace !== '') {
    if (covered.includes(namespace)) return { namespace };
    throw new InputError(
      `the files do not cover namespace ${JSON.stringify(namespace)}: they are dumps of namespace ${list} only (judge them with -n ${covered[0] ?? ''}, or take a dump of ${namespace} or of all namespaces)`,
    );
  }
  if (covered.length === 1) {
    const only = covered[0] as string;
    return { namespace: only, warning: `the dump covers namespace ${JSON.stringify(only)} only, so it is judged as -n ${only}` };
  }
  return { namespace, warning: `the dumps cover namespaces ${list} only; the others are not judged` };
}

/**
 * The Kinds `--covers` names, by Kind name: each name a Kind the checks read or its resource, in any
 * case, or `all`.
 *
 * @throws InputError for a name that is neither.
 */
function coveredKinds(names: readonly string[]): string[] {
  const known = new Map<string, string>();
  for (const { kind, access } of Object.values(KINDS)) {
    known.set(kind.toLowerCase(), kind);
    known.set(access.resource.toLowerCase(), kind);
  }
  const out = new Set<string>();
  for (const name of names) {
    if (name.toLowerCase() === 'all') for (const kind of known.values()) out.add(kind);
    else {
      const kind = known.get(name.toLowerCase());
      if (kind === undefined)
        throw new InputError(
          `--covers ${JSON.stringify(name)} is no Kind the checks read: want all, or some of ${[...new Set(known.values())].join(', ')}`,
        );
      out.add(kind);
    }
  }
  return [...out];
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
    const scope = judgedScope(read, options.namespace);
    if (scope.warning !== undefined) warnings.push(scope.warning);
    const api = new FileApi(objects, lists, scope.namespace === '' ? 'default' : scope.namespace, coveredKinds(options.covers));
    for (const twice of api.duplicates.slice(0, 5)) warnings.push(`an object is given more than once, the last one counts: ${twice}`);
    const noProbes = { configOnly: true };
    return {
      checks: activeDeclarations(noProbes, CHECKS),
      async observe(start) {
        const state = await gatherClusterState(api, { reads: planRun(noProbes).reads, namespace: scope.namespace }, start.signal);
        const dropped = notGivenReads(Object.keys(state) as (keyof ClusterState)[], api.notGiven);
        const findings = notGivenFindings(activeDeclarations(noProbes, DECLARATIONS), dropped);
        const input = { state: without(state, dropped), probes: {}, now: at, namespace: scope.namespace };
        return { input, findings, warnings, locations: api.locations };
      },
    };
  };
}
