/**
 * The core/v1 Pods of a protobuf list, decoded to the JSON shape `projectPod` reads, holding only
 * what it reads. Of a Pod: identity, labels and the install's
 * annotations (the values of the others, a `last-applied-configuration` among them, are not read); the
 * containers' ports and restart policies; node, service account and pull secrets; phase, conditions
 * and the containers' waiting states; and what it asks of a node (resources, overhead, pod-level
 * resources) only while it waits for one. The rest (volumes, tolerations, managedFields, probes, env)
 * is stepped over by its length, never read. Field numbers are those of `k8s.io/api/core/v1` (docs/protobuf.md).
 *
 * @module
 */

import { INSTALL_ANNOTATION_PREFIX } from './install.ts';
import { isWaitingForNode } from './pod-waiting.ts';
import { decodeObjectMeta, mapEntry, quantityValue, stringsOf, type Decoded, type MetaFields } from '../encoding/protobuf-meta.ts';
import { ProtoReader, inner } from '../../protobuf/reader.ts';

/** What `projectPod` reads of a Pod's metadata: its labels, and the install's own annotations. */
const POD_META: MetaFields = {
  identity: true,
  creation: false,
  labels: true,
  annotations: (key) => key.startsWith(INSTALL_ANNOTATION_PREFIX),
};

const decodePodMeta = (r: ProtoReader) => decodeObjectMeta(r, POD_META);

/** The messages whose fields read are all strings, by field number (docs/protobuf.md). */
const decodeName = stringsOf({ 1: 'name' });
const decodeCondition = stringsOf({ 1: 'type', 2: 'status', 5: 'reason', 6: 'message' });
const decodeWaiting = stringsOf({ 1: 'reason', 2: 'message' });

function push(into: Decoded, key: string, value: unknown): void {
  ((into[key] ??= []) as unknown[]).push(value);
}

function decodeResources(r: ProtoReader): Decoded {
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1) mapEntry((out['limits'] ??= {}) as Decoded, r, quantityValue);
    else if (field === 2) mapEntry((out['requests'] ??= {}) as Decoded, r, quantityValue);
    else r.skip();
  }
  return out;
}

function decodePort(r: ProtoReader): Decoded {
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1) out['name'] = r.string();
    else if (field === 3) out['containerPort'] = r.number();
    else if (field === 4) out['protocol'] = r.string();
    else r.skip();
  }
  return out;
}

/** A container's named ports and restart policy; its resources only `withRequests`. */
function decodeContainer(r: ProtoReader, withRequests: boolean): Decoded {
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 6) push(out, 'ports', inner(r, decodePort));
    else if (field === 8 && withRequests) out['resources'] = inner(r, decodeResources);
    else if (field === 24) out['restartPolicy'] = r.string();
    else r.skip();
  }
  return out;
}

const containerOnly = (r: ProtoReader) => decodeContainer(r, false);
const containerWithRequests = (r: ProtoReader) => decodeContainer(r, true);

/**
 * A PodSpec; what the pod asks of a node (the containers' resources, the overhead, the pod-level
 * resources) only `withRequests`: `projectPod` reads them only of a pod that waits for a node.
 */
function decodeSpec(r: ProtoReader, withRequests: boolean): Decoded {
  const out: Decoded = {};
  const container = withRequests ? containerWithRequests : containerOnly;
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 2) push(out, 'containers', inner(r, container));
    else if (field === 20) push(out, 'initContainers', inner(r, container));
    else if (field === 8) out['serviceAccountName'] = r.string();
    else if (field === 9) out['serviceAccount'] = r.string();
    else if (field === 10) out['nodeName'] = r.string();
    else if (field === 15) push(out, 'imagePullSecrets', inner(r, decodeName));
    else if (field === 32 && withRequests) mapEntry((out['overhead'] ??= {}) as Decoded, r, quantityValue);
    else if (field === 40 && withRequests) out['resources'] = inner(r, decodeResources);
    else r.skip();
  }
  return out;
}

/** A ContainerState: only `waiting` is read, its reason and message. */
function decodeState(r: ProtoReader): Decoded {
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1) out['waiting'] = inner(r, decodeWaiting);
    else r.skip();
  }
  return out;
}

function decodeContainerStatus(r: ProtoReader): Decoded {
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1) out['name'] = r.string();
    else if (field === 2) out['state'] = inner(r, decodeState);
    else if (field === 6) out['image'] = r.string();
    else r.skip();
  }
  return out;
}

function decodeStatus(r: ProtoReader): Decoded {
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1) out['phase'] = r.string();
    else if (field === 2) push(out, 'conditions', inner(r, decodeCondition));
    else if (field === 10) push(out, 'initContainerStatuses', inner(r, decodeContainerStatus));
    else if (field === 8) push(out, 'containerStatuses', inner(r, decodeContainerStatus));
    else if (field === 13) push(out, 'ephemeralContainerStatuses', inner(r, decodeContainerStatus));
    else r.skip();
  }
  return out;
}

const specOnly = (r: ProtoReader) => decodeSpec(r, false);
const specWithRequests = (r: ProtoReader) => decodeSpec(r, true);

/**
 * A Pod's bytes, `bytes[start, end)`, as the JSON shape `projectPod` reads. A field named twice keeps
 * its last value. The spec is read without what the pod asks of a node, and read again with it when
 * the pod turns out to wait for one (Pending and not bound, which the status after it says).
 */
export function decodePod(bytes: Uint8Array, start: number, end: number): Decoded {
  const r = new ProtoReader(bytes, start, end);
  const out: Decoded = {};
  let specAt = -1;
  let fieldAt = r.pos;
  for (let field = r.next(); field !== 0; fieldAt = r.pos, field = r.next()) {
    if (field === 1) out['metadata'] = inner(r, decodePodMeta);
    else if (field === 2) {
      specAt = fieldAt;
      out['spec'] = inner(r, specOnly);
    } else if (field === 3) out['status'] = inner(r, decodeStatus);
    else r.skip();
  }
  const spec = out['spec'] as Decoded | undefined;
  const status = out['status'] as Decoded | undefined;
  const phase = typeof status?.['phase'] === 'string' ? status['phase'] : undefined;
  const nodeName = typeof spec?.['nodeName'] === 'string' && spec['nodeName'] !== '' ? spec['nodeName'] : undefined;
  if (specAt >= 0 && isWaitingForNode({ phase, nodeName })) {
    r.pos = specAt;
    r.next();
    out['spec'] = inner(r, specWithRequests);
  }
  return out;
}
