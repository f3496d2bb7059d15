import { listSome } from './helpers.ts';
import { ZERO, addAmounts, compareAmounts, formatQuantity, isPositive, parseQuantity, type Amount } from './quantity.ts';
import type { PodRequests, ResourceList } from '../cluster/kinds/pod.ts';

/** Resource name → amount in nano-units. */
export type Amounts = ReadonlyMap<string, Amount>;

/** A resource list in nano-units; a quantity that does not parse is left out (see {@link refusedQuantities}). */
export function amountsOf(list: ResourceList | undefined): Map<string, Amount> {
  const out = new Map<string, Amount>();
  for (const [name, text] of Object.entries(list ?? {})) {
    const value = parseQuantity(text);
    if (value !== undefined) out.set(name, value);
  }
  return out;
}

function add(into: Map<string, Amount>, more: Amounts): void {
  for (const [name, v] of more) into.set(name, addAmounts(into.get(name) ?? ZERO, v));
}

function maxInto(into: Map<string, Amount>, other: Amounts): void {
  for (const [name, v] of other) if (compareAmounts(v, into.get(name) ?? ZERO) > 0) into.set(name, v);
}

/**
 * The quantities of a pod's requests that the API server would refuse: text it cannot read as a
 * quantity, or a negative amount (its validation refuses a negative request). Each as `cpu "1x"`; a
 * pod holding one is not judged for fit, rather than judged with the value left out.
 */
export function refusedQuantities(requests: PodRequests | undefined): string[] {
  if (requests === undefined) return [];
  const lists = [...requests.initContainers.map((c) => c.requests), ...requests.containers, requests.podLevel, requests.overhead];
  const out = new Set<string>();
  for (const list of lists) {
    for (const [name, text] of Object.entries(list ?? {})) {
      const value = parseQuantity(text);
      if (value === undefined || value.coefficient < 0n) out.add(`${name} ${JSON.stringify(text)}`);
    }
  }
  return [...out];
}

/**
 * The effective request of a pod, per resource, as the scheduler computes it: the regular containers
 * run together (summed); init containers run one at a time before them, so only the largest counts
 * (`max(sum(containers), max(initContainers))`); restartable (sidecar) init containers keep running,
 * so each adds to everything started after it; then the pod overhead is added. Pod-level requests
 * replace the aggregate for the resources they name.
 */
export function effectiveRequests(requests: PodRequests | undefined): Map<string, Amount> {
  const total = new Map<string, Amount>();
  if (requests === undefined) return total;
  const sidecars = new Map<string, Amount>();
  const initPeak = new Map<string, Amount>();
  for (const init of requests.initContainers) {
    const own = amountsOf(init.requests);
    if (init.sidecar) {
      add(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      const during = new Map(sidecars);
      add(during, own);
      maxInto(initPeak, during);
    }
  }
  for (const container of requests.containers) add(total, amountsOf(container));
  add(total, sidecars);
  maxInto(total, initPeak);
  for (const [name, v] of amountsOf(requests.podLevel)) total.set(name, v);
  add(total, amountsOf(requests.overhead));
  for (const [name, v] of total) if (!isPositive(v)) total.delete(name);
  return total;
}

/** The resources of which `allocatable` holds less than `request` (a resource it lacks counts as 0). */
export function shortfalls(request: Amounts, allocatable: Amounts): string[] {
  return [...request].filter(([name, v]) => compareAmounts(v, allocatable.get(name) ?? ZERO) > 0).map(([name]) => name);
}

/**
 * How many resources a message names before it says "and N more": a pod may request any number of
 * extended resources, and its finding should not grow with them.
 */
export const NAMED_RESOURCES = 8;

/** `cpu 2, memory 16Gi, nvidia.com/gpu 1`: cpu and memory first, then the rest by name, the first few of them. */
export function describeAmounts(amounts: Amounts): string {
  const rank = (name: string) => (name === 'cpu' ? 0 : name === 'memory' ? 1 : 2);
  const sorted = [...amounts].sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return listSome(sorted, NAMED_RESOURCES, ([name, v]) => `${name} ${formatQuantity(v, name)}`);
}
