/**
 * The findings of a run from files (`doctor -f`) about the files themselves: a Kind the checks read
 * that the files do not hold is "not given", which is no failure of the cluster (never API001) but
 * leaves the checks that need it unjudged: one WARN per such Kind (FI002) says which checks were
 * skipped or judged in part, so that a gate cannot pass on them; a Kind that only some stage's
 * context lacks is one INFO (FI001).
 *
 * @module
 */

import { READS } from '../cluster/state/reads.ts';
import type { ReadName } from '../cluster/state/state.ts';
import type { Finding } from '../report/finding.ts';
import type { CodeDeclaration, Declaration, ReadMode } from './check.ts';
import { emitterFor } from './check.ts';

/** FI001: a Kind the files lack cost only context, nothing a check would have judged. */
const FI001: CodeDeclaration = {
  status: 'INFO',
  meaning:
    'The files given to doctor -f hold no object of a Kind some stage reads for context only (such as suppression annotations), so it ran without them; nothing was left unjudged.',
  hint: "Add the Kind's objects to the files (inferencecache dump writes every Kind the checks read), or name it in --covers when the files hold all of them.",
  fix: "Only context was lost, such as the suppression annotations of Namespaces; nothing was left unjudged. To include it, add that Kind's objects to the files (inferencecache dump writes every Kind the checks read). If the files hold every object of that Kind and there are none, say so with --covers KIND.",
};

/** FI002: a Kind the files lack left checks, or part of their findings, unjudged. */
const FI002: CodeDeclaration = {
  status: 'WARN',
  meaning:
    'The files given to doctor -f hold no object of a Kind some check needs, so that check was skipped or judged only what it can decide without it: a gate must not pass on what was not judged.',
  hint: "Add the Kind's objects to the files (inferencecache dump writes every Kind the checks read); if the files hold every object of it and there are none, say so with --covers KIND (or --covers all); or suppress FI002 to accept the gap.",
  fix: "1. Add the Kind's objects to the files: take a fresh inferencecache dump > dump.yaml, which writes every Kind the checks read, or add kubectl get <kind> -A -o yaml output. 2. If the files do hold every object of that Kind and there are none, say so: --covers KIND, or --covers all. 3. To accept that those checks were not judged, suppress it: --suppress FI002=<Kind>.",
};

/** The stage that judges the files of `doctor -f`, declared as the checks are; it reads nothing itself. */
export const OFFLINE_INPUT = {
  name: 'OfflineInput',
  codes: { FI001, FI002 },
  reads: {},
  probes: {},
} as const satisfies Declaration;

const emit = emitterFor(OFFLINE_INPUT.name, OFFLINE_INPUT.codes);

/** The reads of a state whose Kind is not given: what the run must drop before judging. */
export function notGivenReads(planned: Iterable<ReadName>, notGiven: ReadonlySet<string>): Set<ReadName> {
  return new Set([...planned].filter((name) => notGiven.has(READS[name].kind)));
}

/** Joins names as a sentence does: `a`, `a and b`, `a, b and c`. */
function sentence(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/**
 * One finding per Kind not given that cost something, in the order of the reads: FI002 when a check of
 * `declarations` (those the run would have judged) was skipped for it (an `items` or `read` read) or
 * judged only in part (a `partial` read), FI001 when it only cost stages their context (`optional`).
 */
export function notGivenFindings(declarations: readonly Declaration[], dropped: ReadonlySet<ReadName>): Finding[] {
  const costs = new Map<string, { skipped: string[]; partial: string[]; degraded: string[] }>();
  for (const name of Object.keys(READS) as ReadName[]) {
    if (dropped.has(name) && !costs.has(READS[name].kind)) costs.set(READS[name].kind, { skipped: [], partial: [], degraded: [] });
  }
  const rank: Readonly<Record<ReadMode, number>> = { items: 3, read: 3, partial: 2, optional: 1 };
  for (const declaration of declarations) {
    const kinds = new Map<string, ReadMode>();
    for (const [name, mode] of Object.entries(declaration.reads) as [ReadName, ReadMode][]) {
      if (!dropped.has(name)) continue;
      const kind = READS[name].kind;
      const before = kinds.get(kind);
      if (before === undefined || rank[mode] > rank[before]) kinds.set(kind, mode);
    }
    for (const [kind, mode] of kinds) {
      const cost = costs.get(kind);
      if (cost === undefined) continue;
      (mode === 'optional' ? cost.degraded : mode === 'partial' ? cost.partial : cost.skipped).push(declaration.name);
    }
  }
  return [...costs].flatMap(([kind, { skipped, partial, degraded }]) => {
    const effects = [
      ...(skipped.length === 0 ? [] : [`${sentence(skipped)} ${skipped.length === 1 ? 'was' : 'were'} skipped`]),
      ...(partial.length === 0
        ? []
        : [`${sentence(partial)} judged only what ${partial.length === 1 ? 'it decides' : 'they decide'} without them`]),
      ...(degraded.length === 0 ? [] : [`${sentence(degraded)} ran without them`]),
    ];
    if (effects.length === 0) return [];
    const code = skipped.length + partial.length > 0 ? 'FI002' : 'FI001';
    return [emit(code, kind, `the files hold no ${kind} objects (no ${kind} and no ${kind}List), so ${effects.join('; ')}`)];
  });
}
