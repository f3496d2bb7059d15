/**
 * Which CacheBackends select which pods, and which pods belong to the install: derived once per run,
 * in time linear in pods plus selectors, for the pod views of the gathering and for the checks.
 *
 * @module
 */

import { COMPONENT_LABEL, INSTALL_NAME, INSTALL_NAME_LABEL, MANAGED_BY_CONTROLLER, MANAGED_BY_LABEL } from '../kinds/install.ts';
import { engineSelectorSelects, hasSelector, labelValue } from '../kinds/label-selector.ts';
import type { InstallRole } from './state.ts';
import type { CacheBackend } from '../kinds/cache-backend.ts';
import type { Pod } from '../kinds/pod.ts';

const NONE: readonly never[] = [];

/** A backend with a selector, and its place in the backend list. */
interface Indexed {
  readonly backend: CacheBackend;
  readonly position: number;
  /** `[backend]`, handed out for every pod that only this backend selects, the usual case. */
  readonly alone: readonly CacheBackend[];
}

/**
 * The engineSelectors of a list of CacheBackends, by the upstream rule. Every pair of a selector must
 * hold, so any one pair is a necessary condition: each selector is filed under one of its pairs, and
 * a pod is matched only against the selectors filed under its own value of each filed key (a handful
 * of map lookups), never against every selector of its namespace.
 */
export class SelectorIndex {
  /** Namespace → filed key → the value the selector wants → the selectors filed there. */
  readonly #filed = new Map<string, Map<string, Map<string, Indexed[]>>>();

  constructor(backends: readonly CacheBackend[]) {
    backends.forEach((backend, position) => {
      if (!hasSelector(backend.matchLabels)) return;
      // The first key in sorted order, so that selectors written in different orders are filed alike.
      const key = Object.keys(backend.matchLabels).sort()[0] ?? '';
      const value = backend.matchLabels[key] ?? '';
      const byKey = this.#filed.get(backend.namespace) ?? new Map<string, Map<string, Indexed[]>>();
      this.#filed.set(backend.namespace, byKey);
      const byValue = byKey.get(key) ?? new Map<string, Indexed[]>();
      byKey.set(key, byValue);
      const filed = byValue.get(value);
      const indexed = { backend, position, alone: Object.freeze([backend]) };
      if (filed === undefined) byValue.set(value, [indexed]);
      else filed.push(indexed);
    });
  }

  /** The backends of the pod's namespace whose engineSelector selects it, in list order. */
  selectorsOf(pod: Pick<Pod, 'namespace' | 'labels'>): readonly CacheBackend[] {
    const byKey = this.#filed.get(pod.namespace);
    if (byKey === undefined) return NONE;
    let found: Indexed[] | undefined;
    for (const [key, byValue] of byKey) {
      for (const candidate of byValue.get(labelValue(pod.labels, key)) ?? NONE) {
        if (engineSelectorSelects(candidate.backend.matchLabels, pod.labels)) (found ??= []).push(candidate);
      }
    }
    if (found === undefined) return NONE;
    if (found.length === 1) return found[0]?.alone ?? NONE;
    return found.sort((a, b) => a.position - b.position).map((c) => c.backend);
  }
}

/**
 * The role a pod's labels give it in the install, undefined for a pod that is not the install's own: the
 * components labelled with the install's name, and the workloads the controller runs for its backends.
 */
export function labelledRole(pod: Pick<Pod, 'labels'>): Exclude<InstallRole, 'engine'> | undefined {
  if (labelValue(pod.labels, INSTALL_NAME_LABEL) !== INSTALL_NAME)
    return labelValue(pod.labels, MANAGED_BY_LABEL) === MANAGED_BY_CONTROLLER ? 'workload' : undefined;
  const component = labelValue(pod.labels, COMPONENT_LABEL);
  return component === 'server' ? 'server' : component === 'controller' ? 'controller' : 'workload';
}

/**
 * The selection between one run's selected pods and its CacheBackends. Two checks need it; each asks
 * {@link podIndex} with the same two lists and gets the same index back, so a 20,000-pod cluster is
 * indexed once, not once per check.
 */
export interface PodIndex {
  /** The pods of the backend's namespace that its engineSelector selects, in list order. */
  selectedBy(backend: CacheBackend): readonly Pod[];
  /** The backends of the pod's namespace whose engineSelector selects it, in list order. */
  selectorsOf(pod: Pod): readonly CacheBackend[];
}

function buildIndex(pods: readonly Pod[], backends: readonly CacheBackend[]): PodIndex {
  const selectors = selectorIndex(backends);
  const selected = new Map<CacheBackend, Pod[]>();
  for (const pod of pods) {
    const chosen = selectors.selectorsOf(pod);
    for (const backend of chosen) {
      const already = selected.get(backend);
      if (already === undefined) selected.set(backend, [pod]);
      else already.push(pod);
    }
  }
  return {
    selectedBy: (backend) => selected.get(backend) ?? NONE,
    selectorsOf: (pod) => selectors.selectorsOf(pod),
  };
}

/** Selector indexes already built, by the backend list they were built from. */
const selectorIndexes = new WeakMap<readonly CacheBackend[], SelectorIndex>();

/** The {@link SelectorIndex} of `backends`, built on the first call with this list. */
export function selectorIndex(backends: readonly CacheBackend[]): SelectorIndex {
  let index = selectorIndexes.get(backends);
  if (index === undefined) {
    index = new SelectorIndex(backends);
    selectorIndexes.set(backends, index);
  }
  return index;
}

/** Pod indexes already built, by the pod list and then the backend list they were built from. */
const podIndexes = new WeakMap<readonly Pod[], WeakMap<readonly CacheBackend[], PodIndex>>();

/**
 * The index of `pods` and `backends`. It is built on the first call with these two lists and handed
 * back on every later one: the lists of a run are never changed once gathered. Engine pods are
 * recognised only among `backends`; pass an empty list when the CacheBackends could not be read.
 */
export function podIndex(pods: readonly Pod[], backends: readonly CacheBackend[]): PodIndex {
  let byBackends = podIndexes.get(pods);
  if (byBackends === undefined) {
    byBackends = new WeakMap();
    podIndexes.set(pods, byBackends);
  }
  let index = byBackends.get(backends);
  if (index === undefined) {
    index = buildIndex(pods, backends);
    byBackends.set(backends, index);
  }
  return index;
}
