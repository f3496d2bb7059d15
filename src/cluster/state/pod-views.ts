/**
 * The views of the one pod list a run reads. The checks declare which they need (`pods`,
 * `installPods`, `selectedPods`, `pendingPodRequests`); the list is read once, and a pod that no
 * declared view can hold is dropped the moment it is read, so a large cluster costs what the views
 * hold, not what it has.
 *
 * @module
 */

import { labelledRole, selectorIndex, type SelectorIndex } from './pod-index.ts';
import type { InstallPod, PendingPodRequests } from './state.ts';
import type { CacheBackend } from '../kinds/cache-backend.ts';
import type { Pod, PodRequests } from '../kinds/pod.ts';
import type { Read } from '../kinds/kind.ts';

/** The reads that are views of the pod list. */
export const POD_VIEWS = ['pods', 'installPods', 'selectedPods', 'pendingPodRequests'] as const;

/** The name of one view of the pod list. */
export type PodViewName = (typeof POD_VIEWS)[number];

/** One pod as the projection reads it: its record, and its requests while it waits for a node. */
export interface PodRead {
  readonly pod: Pod;
  readonly requests?: PodRequests;
}

/** The pod a run leaves out of every view: the doctor's own. */
export interface OwnPod {
  readonly namespace: string;
  readonly name: string;
}

/** The views a run asked for, each as it ends up in the state. */
export type PodViews = {
  readonly pods?: Read<Pod>;
  readonly installPods?: Read<InstallPod>;
  readonly selectedPods?: Read<Pod>;
  readonly pendingPodRequests?: Read<PendingPodRequests>;
};

/**
 * What the CacheBackends are to the views: not known yet (while both lists stream), their list, or
 * why it could not be read.
 */
export type BackendsSeen =
  | { readonly kind: 'pending' }
  | { readonly kind: 'known'; readonly items: readonly CacheBackend[] }
  | { readonly kind: 'failed'; readonly error: string };

function isOwn(pod: Pod, own: OwnPod | undefined): boolean {
  return own !== undefined && own.name !== '' && pod.namespace === own.namespace && pod.name === own.name;
}

/**
 * Decides, pod by pod as the list is read, whether some view may still hold it: every pod for `pods`;
 * a pod with requests for `pendingPodRequests`; for `installPods` and `selectedPods`, a labelled pod,
 * a pod a known CacheBackend selects, or any pod while the CacheBackends are still on their way (those
 * are sorted out by {@link podViews} at the end).
 */
export function podKeeper(
  views: ReadonlySet<PodViewName>,
  own: OwnPod | undefined,
  backends: () => BackendsSeen,
): (read: PodRead) => boolean {
  const all = views.has('pods');
  const pending = views.has('pendingPodRequests');
  const selection = views.has('installPods') || views.has('selectedPods');
  let selectors: SelectorIndex | undefined;
  return ({ pod, requests }) => {
    if (isOwn(pod, own)) return false;
    if (all || (pending && requests !== undefined)) return true;
    if (!selection) return false;
    if (labelledRole(pod) !== undefined) return true;
    const seen = backends();
    if (seen.kind === 'pending') return true;
    if (seen.kind === 'failed') return false;
    selectors ??= selectorIndex(seen.items);
    return selectors.selectorsOf(pod).length > 0;
  };
}

/**
 * The views of a pod list, in list order, the doctor's own pod left out. Without the CacheBackends
 * the install's pods are the labelled ones only, and the selected pods cannot be told (that view fails
 * with the CacheBackends' error).
 */
export function podViews(
  reads: Read<PodRead>,
  backends: Exclude<BackendsSeen, { kind: 'pending' }>,
  views: ReadonlySet<PodViewName>,
  own?: OwnPod,
): PodViews {
  if (!reads.ok) {
    const failed = { ok: false, error: reads.error } as const;
    return Object.fromEntries([...views].map((view) => [view, failed]));
  }
  const mine = reads.items.filter(({ pod }) => !isOwn(pod, own));
  const selectors = backends.kind === 'known' ? selectorIndex(backends.items) : undefined;
  const out: { -readonly [K in keyof PodViews]: PodViews[K] } = {};
  if (views.has('pods')) out.pods = { ok: true, items: mine.map(({ pod }) => pod) };
  if (views.has('pendingPodRequests')) {
    const pending = mine.flatMap(({ pod, requests }) =>
      requests === undefined ? [] : [{ namespace: pod.namespace, name: pod.name, requests }],
    );
    out.pendingPodRequests = { ok: true, items: pending };
  }
  if (views.has('installPods') || views.has('selectedPods')) {
    const install: InstallPod[] = [];
    const selected: Pod[] = [];
    for (const { pod } of mine) {
      const chosen = selectors !== undefined && selectors.selectorsOf(pod).length > 0;
      if (chosen) selected.push(pod);
      const role = labelledRole(pod) ?? (chosen ? 'engine' : undefined);
      if (role !== undefined) install.push({ pod, role });
    }
    if (views.has('installPods')) out.installPods = { ok: true, items: install };
    if (views.has('selectedPods')) {
      out.selectedPods =
        backends.kind === 'failed'
          ? { ok: false, error: `which pods the CacheBackends select is unknown: ${backends.error}` }
          : { ok: true, items: selected };
    }
  }
  return out;
}
