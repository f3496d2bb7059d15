/**
 * The doctor's suppression annotations as objects carry them: which codes an object silences for itself
 * (or, on a Namespace, for everything in it), and why. Read here, where objects are projected; the
 * suppression stage (`src/suppress/`) turns them into rules.
 *
 * @module
 */

import { obj, optStr, type WireObject } from '../encoding/wire.ts';

/**
 * The doctor's suppression annotations of an object (`inferencecache.io/doctor-suppress`, the codes,
 * and `inferencecache.io/doctor-suppress-reason`), as written; parsed by the suppression stage.
 */
export interface SuppressAnnotation {
  readonly codes: string;
  readonly reason?: string;
}

/** The doctor's suppression annotation of an object: the codes it lists, and the reason beside them. */
export const SUPPRESS_ANNOTATION = 'inferencecache.io/doctor-suppress';
/** Why the object's findings are suppressed, in the operator's words. */
export const SUPPRESS_REASON_ANNOTATION = 'inferencecache.io/doctor-suppress-reason';

/** The suppression annotation of an object's `metadata`, or undefined when it has none. */
export function suppressAnnotation(raw: unknown): SuppressAnnotation | undefined {
  return suppressAnnotationIn(obj(obj(obj(raw)?.['metadata'])?.['annotations']));
}

/** The suppression annotation among `annotations` (as read, or as a projection kept them), if any. */
export function suppressAnnotationIn(annotations: WireObject | undefined): SuppressAnnotation | undefined {
  const codes = optStr(annotations?.[SUPPRESS_ANNOTATION]);
  if (codes === undefined) return undefined;
  const reason = optStr(annotations?.[SUPPRESS_REASON_ANNOTATION]);
  return reason === undefined ? { codes } : { codes, reason };
}
