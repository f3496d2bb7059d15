/**
 * The findings of a run from files (`doctor -f`) about the files themselves: a Kind the checks read
 * that the files do not hold is "not given", which is no failure of the cluster (never API001) but
 * leaves the checks that need it unjudged. One INFO per such Kind says which checks were skipped.
 *
 * @module
 */

import { READS } from '../cluster/state/reads.ts';
import type { ReadName } from '../cluster/state/state.ts';
import type { Finding } from '../report/finding.ts';
import type { CodeDeclaration, Declaration, ReadMode } from './check.ts';
import { emitterFor } from './check.ts';

/** FI001: a Kind some check reads is not in the files given to `doctor -f`. */
const FI001: CodeDeclaration = {
  status: 'INFO',
  meaning: 'The files given to doctor -f hold no object of a Kind some check reads, so the checks that need it were skipped.',
  hint: "Add the Kind's objects to the files (inferencecache dump writes every Kind the checks read), or accept that those checks did not run.",
};

/** The stage that judges the files of `doctor -f`, declared as the checks are; it reads nothing itself. */
export const OFFLINE_INPUT = {
  name: 'OfflineInput',
  codes: { FI001 },
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
 * One FI001 per Kind not given that cost something, in the order of the reads: the checks of
 * `declarations` (those the run would have judged) that declared a read of it they cannot do without,
 * and the stages that would have read it for less (the Namespaces' suppression annotations).
 */
export function notGivenFindings(declarations: readonly Declaration[], dropped: ReadonlySet<ReadName>): Finding[] {
  const costs = new Map<string, { skipped: string[]; degraded: string[] }>();
  for (const name of Object.keys(READS) as ReadName[]) {
    if (dropped.has(name) && !costs.has(READS[name].kind)) costs.set(READS[name].kind, { skipped: [], degraded: [] });
  }
  for (const declaration of declarations) {
    const kinds = new Map<string, ReadMode>();
    for (const [name, mode] of Object.entries(declaration.reads) as [ReadName, ReadMode][]) {
      if (!dropped.has(name)) continue;
      const kind = READS[name].kind;
      if (kinds.get(kind) !== 'items' && kinds.get(kind) !== 'read') kinds.set(kind, mode);
    }
    for (const [kind, mode] of kinds) {
      const cost = costs.get(kind);
      if (cost === undefined) continue;
      (mode === 'optional' ? cost.degraded : cost.skipped).push(declaration.name);
    }
  }
  return [...costs].flatMap(([kind, { skipped, degraded }]) => {
    const effects = [
      ...(skipped.length === 0 ? [] : [`${sentence(skipped)} ${skipped.length === 1 ? 'was' : 'were'} skipped`]),
      ...(degraded.length === 0 ? [] : [`${sentence(degraded)} ran without them`]),
    ];
    if (effects.length === 0) return [];
    return [emit('FI001', kind, `the files hold no ${kind} objects (no ${kind} and no ${kind}List), so ${effects.join('; ')}`)];
  });
}
