/**
 * The scheduling the stand-in does in place of kube-scheduler (which the test control plane does not
 * run): an unbound pod it is responsible for is bound to its node through `pods/binding`, which also
 * sets PodScheduled=True, and gets the scheduler's `Scheduled` event. Pods with scheduling gates, a
 * nodeSelector the node does not satisfy, or outside the configured namespaces / filter are left
 * alone, so other suites' pods are not taken.
 *
 * @module
 */

import { isStatus, type KubeApi } from './api.ts';
import type { EventRecorder } from './events.ts';
import type { Pod } from './types.ts';

/** Which unbound pods the stand-in schedules. */
export interface SchedulingPolicy {
  readonly nodeName: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
  /** Only pods in these namespaces; absent: every namespace. */
  readonly namespaces?: readonly string[] | undefined;
  /** Only pods naming one of these schedulers; absent: any scheduler name. */
  readonly schedulerNames?: readonly string[] | undefined;
  /** A further filter. */
  readonly accept?: ((pod: Pod) => boolean) | undefined;
}

/** True when the stand-in should bind `pod` to its node. */
export function shouldBind(policy: SchedulingPolicy, pod: Pod): boolean {
  if ((pod.spec.nodeName ?? '') !== '' || pod.metadata.deletionTimestamp !== undefined) return false;
  if ((pod.spec.schedulingGates ?? []).length > 0) return false;
  const phase = pod.status?.phase ?? 'Pending';
  if (phase !== 'Pending') return false;
  if (policy.namespaces !== undefined && !policy.namespaces.includes(pod.metadata.namespace ?? '')) return false;
  if (policy.schedulerNames !== undefined && !policy.schedulerNames.includes(pod.spec.schedulerName ?? 'default-scheduler')) return false;
  for (const [key, value] of Object.entries(pod.spec.nodeSelector ?? {})) if (policy.nodeLabels[key] !== value) return false;
  return policy.accept === undefined || policy.accept(pod);
}

/** Binds `pod` to the node; a pod bound meanwhile (409) or gone (404) is not an error. */
export async function bindPod(api: KubeApi, events: EventRecorder, nodeName: string, pod: Pod): Promise<boolean> {
  const namespace = pod.metadata.namespace ?? 'default';
  try {
    await api.post(`/api/v1/namespaces/${namespace}/pods/${pod.metadata.name}/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: pod.metadata.name, namespace, uid: pod.metadata.uid },
      target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
    });
  } catch (err) {
    if (isStatus(err, 404, 409)) return false;
    throw err;
  }
  await events.record(pod, {
    type: 'Normal',
    reason: 'Scheduled',
    message: `Successfully assigned ${namespace}/${pod.metadata.name} to ${nodeName}`,
    component: pod.spec.schedulerName ?? 'default-scheduler',
  });
  return true;
}
