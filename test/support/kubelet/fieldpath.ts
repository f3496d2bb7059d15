/**
 * Downward API field paths, resolved the way the kubelet resolves them for env vars (`fieldRef`)
 * and for `downwardAPI` volume files. Whole-map values (`metadata.labels`) use the kubelet's
 * `key="value"` lines: keys sorted bytewise, values Go-quoted, no trailing newline.
 *
 * @module
 */

import { goQuote } from '../../../src/go/quote.ts';
import type { Pod } from './types.ts';

/** A field path the stand-in cannot resolve (the kubelet would refuse it the same way). */
export class FieldPathError extends Error {
  override readonly name = 'FieldPathError';
}

/** The kubelet's `fieldpath.FormatMap`. */
export function formatMap(map: Readonly<Record<string, string>>): string {
  const keys = Object.keys(map).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return keys.map((k) => `${k}=${goQuote(map[k] ?? '')}`).join('\n');
}

const SUBSCRIPT = /^metadata\.(labels|annotations)\['(.+)'\]$/;

/** Fields of the pod's metadata, valid in both env vars and volume files. */
function metadataField(pod: Pod, fieldPath: string): string | undefined {
  const sub = SUBSCRIPT.exec(fieldPath);
  if (sub !== null) {
    const map = sub[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[sub[2] ?? ''] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'metadata.labels':
      return formatMap(pod.metadata.labels ?? {});
    case 'metadata.annotations':
      return formatMap(pod.metadata.annotations ?? {});
    default:
      return undefined;
  }
}

/** The value of a `downwardAPI` volume item's `fieldRef`. */
export function volumeFieldValue(pod: Pod, fieldPath: string): string {
  const value = metadataField(pod, fieldPath);
  if (value === undefined) throw new FieldPathError(`unsupported fieldPath: ${fieldPath}`);
  return value;
}

/** Runtime facts an env `fieldRef` may read besides the metadata. */
export interface PodRuntimeFields {
  readonly hostIP: string;
  readonly podIP: string;
}

/** The value of an env var's `valueFrom.fieldRef`. */
export function envFieldValue(pod: Pod, fieldPath: string, runtime: PodRuntimeFields): string {
  switch (fieldPath) {
    case 'metadata.labels':
    case 'metadata.annotations':
      throw new FieldPathError(`unsupported fieldPath: ${fieldPath}`);
    case 'spec.nodeName':
      return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.hostIP':
    case 'status.hostIPs':
      return runtime.hostIP;
    case 'status.podIP':
    case 'status.podIPs':
      return runtime.podIP;
    default: {
      const value = metadataField(pod, fieldPath);
      if (value === undefined) throw new FieldPathError(`unsupported fieldPath: ${fieldPath}`);
      return value;
    }
  }
}
