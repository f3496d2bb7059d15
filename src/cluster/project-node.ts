import type { NodeRecord } from './state.ts';
import { arr, obj, objectRef, resourceList, str } from './wire.ts';

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
