/**
 * How `inferencecache dump` writes one object of a Kind, by the Kind's dump policy (`kind.ts`): the
 * object with `apiVersion` and `kind` first (list items come without them), never with its
 * `managedFields` or kubectl's last-applied configuration, and redacted or stood in for as its Kind
 * declares.
 *
 * @module
 */

import { obj } from '../encoding/wire.ts';
import { apiVersionOf } from './access.ts';
import type { DumpPolicy, KindDeclaration } from './kind.ts';

/** The annotation `kubectl apply` keeps the whole applied object in (a Pod's literal env values among it). */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** `value` without what the path (already split at its dots) names; unchanged where the path leads nowhere. */
function without(value: unknown, steps: readonly string[]): unknown {
  const [step, ...rest] = steps;
  if (step === undefined) return value;
  const list = step.endsWith('[]');
  const key = list ? step.slice(0, -2) : step;
  const fields = obj(value);
  if (fields === undefined || !(key in fields)) return value;
  if (rest.length === 0 && !list) {
    const { [key]: _removed, ...kept } = fields;
    return kept;
  }
  const inner = fields[key];
  if (list) {
    if (!Array.isArray(inner)) return value;
    return { ...fields, [key]: rest.length === 0 ? [] : inner.map((element: unknown) => without(element, rest)) };
  }
  return { ...fields, [key]: without(inner, rest) };
}

/** The object with the values at each of `paths` removed (see {@link DumpPolicy}). */
export function redacted(value: unknown, paths: readonly string[]): unknown {
  return paths.reduce((object, path) => without(object, path.split('.')), value);
}

/** The object of Kind `declaration` as the dump writes it. */
export function dumpedObject(declaration: Pick<KindDeclaration, 'kind' | 'access' | 'dump'>, raw: unknown): Record<string, unknown> {
  const policy: DumpPolicy = declaration.dump;
  if (policy.write === 'stand-in') return policy.standIn(raw);
  const apiVersion = apiVersionOf(declaration.access);
  const object: Record<string, unknown> = { apiVersion, kind: declaration.kind, ...obj(raw) };
  object['apiVersion'] = apiVersion;
  object['kind'] = declaration.kind;
  const metadata: Record<string, unknown> = { ...obj(object['metadata']) };
  delete metadata['managedFields'];
  const annotations = obj(metadata['annotations']);
  if (annotations?.[LAST_APPLIED] !== undefined) {
    const { [LAST_APPLIED]: _dropped, ...rest } = annotations;
    metadata['annotations'] = rest;
  }
  object['metadata'] = metadata;
  return policy.write === 'redacted' ? (redacted(object, policy.remove) as Record<string, unknown>) : object;
}
