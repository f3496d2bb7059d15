/**
 * Tolerant readers of wire-shaped JSON for the projections: a field of the wrong type reads as
 * absent, because a diagnostic must not crash on the very breakage it is meant to report. Under
 * {@link strictly} (an operator's files) they also report it, so that the file is refused instead.
 *
 * @module
 */

import type { FieldSpec, Fields, MessageType, Scalar, Value, Wire } from '../../protobuf/schema.ts';

/**
 * A count from the cluster (an int64 in the API), exact: a bigint when it is an integer beyond 2^53,
 * which a JavaScript number would round (9223372036854775807 would print as 9223372036854776000).
 */
export type Count = number | bigint;

/** Whether a count is zero, in either form. */
export function isZero(count: Count): boolean {
  return count === 0 || count === 0n;
}

/**
 * Where the readers report a value of the wrong type while a projection runs under {@link strictly}
 * (the objects of `doctor -f`); unset otherwise, when a wrong type reads as absent and nothing more.
 */
let onWrongType: ((found: string) => void) | undefined;

/** What a value is, in a few words, for the report of a wrong type. */
function described(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  const text =
    typeof v === 'string'
      ? JSON.stringify(v)
      : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint'
        ? String(v)
        : typeof v;
  return `${typeof v === 'string' ? 'the string' : typeof v === 'boolean' ? 'the boolean' : 'the number'} ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}

/** Reports `v` as the wrong type when a strict projection runs; null and absent are never wrong (unset). */
function wrongType(expected: string, v: unknown): void {
  if (onWrongType !== undefined && v !== undefined && v !== null)
    onWrongType(`${expected} is expected where the object holds ${described(v)}`);
}

/**
 * Runs `read` (a projection) with every reader reporting to `report` a value of a type other than the
 * field's, instead of reading it as absent in silence: an operator's file is refused for it, while the
 * API server, which validates what it stores, is read tolerantly.
 */
export function strictly<T>(report: (found: string) => void, read: () => T): T {
  const before = onWrongType;
  onWrongType = report;
  try {
    return read();
  } finally {
    onWrongType = before;
  }
}

/** A JSON object as it arrived on the wire. */
export type WireObject = Readonly<Record<string, unknown>>;

/** The value as a JSON object, or undefined when it is anything else (arrays included). */
export function obj(v: unknown): WireObject | undefined {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as WireObject;
  wrongType('a mapping', v);
  return undefined;
}

/** The elements of an array field; an absent or non-array field reads as empty. */
export function arr(v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  wrongType('a list', v);
  return [];
}

/** The value as a string; anything else reads as the empty string. */
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  wrongType('a string', v);
  return '';
}

/** A non-empty string, or undefined. */
export function optStr(v: unknown): string | undefined {
  if (typeof v !== 'string') wrongType('a string', v);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A finite number or an exact big integer (see `parseApiJson`), or undefined. */
export function optInt(v: unknown): Count | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  wrongType('an integer', v);
  return undefined;
}

/** The string entries of a map field, only those whose key `keep` accepts. */
export function stringMap(v: unknown, keep: (key: string) => boolean = () => true): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(obj(v) ?? {})) {
    if (typeof val === 'string') {
      if (keep(k)) out[k] = val;
    } else wrongType(`a string (at key ${JSON.stringify(k)})`, val);
  }
  return out;
}

/**
 * A Kubernetes `ResourceList`: quantities arrive as strings, but a hand-written object may carry a
 * plain number, which is kept in its decimal form.
 */
export function resourceList(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(obj(v) ?? {})) {
    if (typeof val === 'string') out[k] = val;
    else if (typeof val === 'number' && Number.isFinite(val)) out[k] = String(val);
    else wrongType(`a quantity (at ${JSON.stringify(k)})`, val);
  }
  return out;
}

/** Whether an object has no own keys. */
export function isEmpty(o: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(o).length === 0;
}

/** Namespace, name and uid from `metadata`, empty strings when absent. */
export function objectRef(raw: unknown): { namespace: string; name: string; uid: string } {
  const meta = obj(obj(raw)?.['metadata']);
  return { namespace: str(meta?.['namespace']), name: str(meta?.['name']), uid: str(meta?.['uid']) };
}

/**
 * Typed readers of a message's JSON form, for the Kinds read in protobuf too (`protobuf/schema.ts`): a
 * projection names only the fields the declaration declares (`Wire<M>`), and reads each through the
 * reader of its declared type, which tolerates any shape as the readers above do. What the decoder of
 * the declaration leaves out, a projection cannot read, in either encoding.
 */

/** A declared field holding one message. */
type MessageField<M extends MessageType> = FieldSpec & { readonly type: M; readonly repeated?: undefined };
/** A declared repeated message field. */
type RepeatedField<M extends MessageType> = FieldSpec & { readonly type: M; readonly repeated: true };
/** A declared field of a scalar type. */
type ScalarField<T extends Scalar> = FieldSpec & { readonly type: T; readonly repeated?: undefined };

/** An object's JSON form as its declaration `type` reads it, or undefined when it is not an object. */
export function wireOf<M extends MessageType>(_type: M, raw: unknown): Wire<M> | undefined {
  return obj(raw) as Wire<M> | undefined;
}

/** A message field: its JSON form, or undefined when absent or not an object. */
export function messageAt<M extends MessageType>(value: Value<MessageField<M>> | undefined): Wire<M> | undefined {
  return obj(value) as Wire<M> | undefined;
}

/** A repeated message field: each element's JSON form, undefined for one that is not an object; absent reads as none. */
export function messagesAt<M extends MessageType>(value: Value<RepeatedField<M>> | undefined): readonly (Wire<M> | undefined)[] {
  return arr(value).map((element) => obj(element) as Wire<M> | undefined);
}

/** A string field; anything else reads as the empty string. */
export function stringAt(value: Value<ScalarField<'string'>> | undefined): string {
  return str(value);
}

/** A string field that is set and not empty, or undefined. */
export function optStringAt(value: Value<ScalarField<'string'>> | undefined): string | undefined {
  return optStr(value);
}

/** An integer field: a number, or undefined when it is anything else. */
export function numberAt(value: Value<ScalarField<'int32' | 'int64'>> | undefined): number | undefined {
  if (typeof value === 'number') return value;
  wrongType('a number', value);
  return undefined;
}

/** A `map<string, string>` field's entries, only those whose key `keep` accepts. */
export function stringMapAt(
  value: Value<FieldSpec & { readonly type: { readonly mapOf: 'string' } }> | undefined,
  keep?: (key: string) => boolean,
): Record<string, string> {
  return stringMap(value, keep);
}

/** A `map<string, Quantity>` field (a `ResourceList`), quantities as written (see {@link resourceList}). */
export function quantitiesAt(
  value: Value<FieldSpec & { readonly type: { readonly mapOf: MessageType } }> | undefined,
): Record<string, string> {
  return resourceList(value);
}

/** A time field (`Time`, `MicroTime`) as its RFC 3339 text, or undefined when unset. */
export function timeAt(
  value: Value<MessageField<MessageType<Fields, { readonly kind: 'time' | 'micro-time' }>>> | undefined,
): string | undefined {
  return optStr(value);
}
