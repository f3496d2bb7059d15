import { arr, obj, objectRef, resourceList, str } from '../encoding/wire.ts';
import { CORE } from './access.ts';
import { defineKind } from './kind.ts';
import type { ResourceList } from './pod.ts';

/** A Node as NodeFit sees it. */
export interface NodeRecord {
  readonly name: string;
  /** Whether the `Ready` condition is `True`. */
  readonly ready: boolean;
  /** `spec.unschedulable` (cordoned). */
  readonly unschedulable: boolean;
  /** `status.allocatable`, quantities as written. */
  readonly allocatable: ResourceList;
}

/** Projects a Node to its readiness (`Ready` condition True), cordon flag and allocatable. */
export function projectNode(raw: unknown): NodeRecord {
  const spec = obj(obj(raw)?.['spec']);
  const status = obj(obj(raw)?.['status']);
  const ready = arr(status?.['conditions'])
    .map(obj)
    .find((c) => str(c?.['type']) === 'Ready');
  return {
    name: objectRef(raw).name,
    ready: str(ready?.['status']) === 'True',
    unschedulable: spec?.['unschedulable'] === true,
    allocatable: resourceList(status?.['allocatable']),
  };
}

/** The nodes, for what a waiting pod could fit on. */
export const NODE_KIND = defineKind({
  kind: 'Node',
  access: { ...CORE, resource: 'nodes', verbs: ['list'], namespaced: false },
  reads: 'list',
  project: projectNode,
  dump: { write: 'whole' },
});
