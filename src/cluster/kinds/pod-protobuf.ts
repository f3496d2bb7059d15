/**
 * The core/v1 Pod as the doctor reads it in protobuf, declared field by field (`protobuf/schema.ts`):
 * identity, labels and the install's annotations (the values of the others, a
 * `last-applied-configuration` among them, are stepped over); the containers' ports and restart
 * policies; node, service account and pull secrets; phase, conditions and the containers' waiting
 * states; and what it asks of a node (resources, overhead, pod-level resources), labelled `waiting`:
 * decoded only of a pod that waits for one. Everything else (volumes, tolerations, managedFields,
 * probes, env) is stepped over by its length, never read. Numbers are those of `k8s.io/api/core/v1`.
 *
 * @module
 */

import { compile, type Decoded } from '../../protobuf/decode.ts';
import { ProtoReader } from '../../protobuf/reader.ts';
import { mapOf, message, pick, without } from '../../protobuf/schema.ts';
import { LIST_META, OBJECT_META, QUANTITY } from '../encoding/apimachinery.ts';
import { INSTALL_ANNOTATION_PREFIX } from './install.ts';
import { isWaitingForNode } from './pod-waiting.ts';

const CORE = 'k8s.io.api.core.v1';

/** The label of what a pod asks of a node: read only while it waits for one. */
export const WAITING = 'waiting';

export const CONTAINER_PORT = message(`${CORE}.ContainerPort`, {
  name: { number: 1, type: 'string' },
  containerPort: { number: 3, type: 'int32' },
  protocol: { number: 4, type: 'string' },
});

export const RESOURCE_REQUIREMENTS = message(`${CORE}.ResourceRequirements`, {
  limits: { number: 1, type: mapOf(QUANTITY) },
  requests: { number: 2, type: mapOf(QUANTITY) },
});

export const CONTAINER = message(`${CORE}.Container`, {
  ports: { number: 6, type: CONTAINER_PORT, repeated: true },
  resources: { number: 8, type: RESOURCE_REQUIREMENTS, when: WAITING },
  restartPolicy: { number: 24, type: 'string' },
});

export const LOCAL_OBJECT_REFERENCE = message(`${CORE}.LocalObjectReference`, { name: { number: 1, type: 'string' } });

export const POD_SPEC = message(`${CORE}.PodSpec`, {
  containers: { number: 2, type: CONTAINER, repeated: true },
  serviceAccountName: { number: 8, type: 'string' },
  serviceAccount: { number: 9, type: 'string' },
  nodeName: { number: 10, type: 'string' },
  imagePullSecrets: { number: 15, type: LOCAL_OBJECT_REFERENCE, repeated: true },
  initContainers: { number: 20, type: CONTAINER, repeated: true },
  overhead: { number: 32, type: mapOf(QUANTITY), when: WAITING },
  resources: { number: 40, type: RESOURCE_REQUIREMENTS, when: WAITING },
});

export const POD_CONDITION = message(`${CORE}.PodCondition`, {
  type: { number: 1, type: 'string' },
  status: { number: 2, type: 'string' },
  reason: { number: 5, type: 'string' },
  message: { number: 6, type: 'string' },
});

export const CONTAINER_STATE_WAITING = message(`${CORE}.ContainerStateWaiting`, {
  reason: { number: 1, type: 'string' },
  message: { number: 2, type: 'string' },
});

export const CONTAINER_STATE = message(`${CORE}.ContainerState`, { waiting: { number: 1, type: CONTAINER_STATE_WAITING } });

export const CONTAINER_STATUS = message(`${CORE}.ContainerStatus`, {
  name: { number: 1, type: 'string' },
  state: { number: 2, type: CONTAINER_STATE },
  image: { number: 6, type: 'string' },
});

export const POD_STATUS = message(`${CORE}.PodStatus`, {
  phase: { number: 1, type: 'string' },
  conditions: { number: 2, type: POD_CONDITION, repeated: true },
  containerStatuses: { number: 8, type: CONTAINER_STATUS, repeated: true },
  initContainerStatuses: { number: 10, type: CONTAINER_STATUS, repeated: true },
  ephemeralContainerStatuses: { number: 13, type: CONTAINER_STATUS, repeated: true },
});

/** A Pod's metadata as read: identity, labels, and of the annotations only the install's own. */
export const POD_META = message(OBJECT_META.name, {
  name: OBJECT_META.fields.name,
  namespace: OBJECT_META.fields.namespace,
  uid: OBJECT_META.fields.uid,
  labels: OBJECT_META.fields.labels,
  annotations: { ...OBJECT_META.fields.annotations, keyPrefix: INSTALL_ANNOTATION_PREFIX },
});

/** The Pod, every field the doctor reads of it. */
export const POD = message(`${CORE}.Pod`, {
  metadata: { number: 1, type: POD_META },
  spec: { number: 2, type: POD_SPEC },
  status: { number: 3, type: POD_STATUS },
});

/** A list of Pods, as the API server answers one page. */
export const POD_LIST = message(`${CORE}.PodList`, {
  metadata: { number: 1, type: LIST_META },
  items: { number: 2, type: POD, repeated: true },
});

/** The first reading of every pod: all but what it asks of a node. */
const decodeFirst = compile(without(POD, WAITING));
/** The second reading, of a pod that waits for a node: its spec, with what it asks of one. */
const decodeSpec = compile(pick(POD, ['spec']));

/**
 * A Pod's bytes, `bytes[start, end)`, as the JSON form `projectPod` reads. What the pod asks of a node
 * is read only when the pod turns out to wait for one (Pending and not bound, which its status, after
 * the spec, says): then the spec is read again, with it.
 */
export function decodePod(bytes: Uint8Array, start: number, end: number): Decoded {
  const out = decodeFirst(new ProtoReader(bytes, start, end));
  const spec = out['spec'] as Decoded | undefined;
  const status = out['status'] as Decoded | undefined;
  const phase = typeof status?.['phase'] === 'string' ? status['phase'] : undefined;
  const nodeName = typeof spec?.['nodeName'] === 'string' && spec['nodeName'] !== '' ? spec['nodeName'] : undefined;
  if (spec !== undefined && isWaitingForNode({ phase, nodeName })) out['spec'] = decodeSpec(new ProtoReader(bytes, start, end))['spec'];
  return out;
}
