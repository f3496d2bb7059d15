/**
 * The API calls a doctor run makes, derived from its plan (the checks' declarations): one `list` of
 * each collection it reads (for test namespaces of fewer than 500 objects a Kind, one page), and under
 * `-n` one `get` of that Namespace instead of listing them all. A test adds what its scenario adds
 * (the pull secrets it names), so that a check reading a new Kind changes no test's expectations.
 *
 * @module
 */
import { planRun } from '../../src/checks/registry.ts';
import { KINDS } from '../../src/cluster/kinds/kinds.ts';
import { listsOf } from '../../src/cluster/state/reads.ts';

/** `<verb> <resource>` → how many times, for a run of this shape. */
export function plannedCalls(run: { readonly configOnly: boolean; readonly namespaced: boolean }): Record<string, number> {
  const lists = listsOf(planRun({ configOnly: run.configOnly }).reads).filter((name) => !(run.namespaced && name === 'namespaces'));
  return {
    ...Object.fromEntries(lists.map((name) => [`list ${KINDS[name].access.resource}`, 1])),
    ...(run.namespaced ? { 'get namespaces': 1 } : {}),
  };
}
