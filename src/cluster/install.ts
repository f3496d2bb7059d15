import { engineSelectorSelects, hasSelector, type MatchLabels } from './label-selector.ts';
import type { CacheBackend, Pod } from './state.ts';

/** The label every component of an inference-cache install carries, and its value. */
export const INSTALL_NAME_LABEL = 'app.kubernetes.io/name';
export const INSTALL_NAME = 'inference-cache';
/** The label that tells the components apart (`server`, `controller`, …). */
export const COMPONENT_LABEL = 'app.kubernetes.io/component';

/** The labels of the cache-plane server's pods (upstream config/server). */
export const SERVER_POD_LABELS: Readonly<Record<string, string>> = { [INSTALL_NAME_LABEL]: INSTALL_NAME, [COMPONENT_LABEL]: 'server' };

/**
 * What a pod is to the install:
 * - `server`, `controller`: labelled `app.kubernetes.io/name=inference-cache` with that component;
 * - `workload`: any other pod with the install's name label, which is how the managed cache workloads
 *   (and anything else the install deploys) are recognised — the pod's owner chain is not read;
 * - `engine`: selected by a CacheBackend of its namespace (the same equality rule as
 *   EnginePodInjectionAudit).
 */
export type InstallRole = 'server' | 'controller' | 'workload' | 'engine';

/** A pod of the install and its role. */
export interface InstallPod {
  readonly pod: Pod;
  readonly role: InstallRole;
}

/**
 * The pods of the install among `pods`, in list order. Engine pods are recognised only when the
 * CacheBackends were read; pass an empty list otherwise.
 */
export function installPods(pods: readonly Pod[], backends: readonly CacheBackend[]): InstallPod[] {
  const selectors = new Map<string, MatchLabels[]>();
  for (const b of backends) {
    if (!hasSelector(b.matchLabels)) continue;
    selectors.set(b.namespace, [...(selectors.get(b.namespace) ?? []), b.matchLabels]);
  }
  const out: InstallPod[] = [];
  for (const pod of pods) {
    if (pod.labels[INSTALL_NAME_LABEL] === INSTALL_NAME) {
      const component = pod.labels[COMPONENT_LABEL];
      out.push({ pod, role: component === 'server' ? 'server' : component === 'controller' ? 'controller' : 'workload' });
    } else if ((selectors.get(pod.namespace) ?? []).some((s) => engineSelectorSelects(s, pod.labels))) {
      out.push({ pod, role: 'engine' });
    }
  }
  return out;
}

/** Whether a pod has finished for good (phase Succeeded or Failed). */
export function isTerminated(pod: Pod): boolean {
  return pod.phase === 'Succeeded' || pod.phase === 'Failed';
}
