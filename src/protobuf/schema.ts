/**
 * Protobuf messages declared as the doctor reads them: for each message, only the fields some reader
 * needs, each with its number, its type and the name its JSON form gives it. A declaration is the one
 * place a field number is written: the decoder is compiled from it (`decode.ts`), the projections read
 * the JSON form through types derived from it (`Wire`), the documentation's table is generated from
 * it, and a test holds every number and type against the `.proto` files of the API the declaration
 * names.
 *
 * @module
 */

/** The scalar types a declaration may name; `enum` is an int32 on the wire, `bytes` is base64 in JSON. */
export type Scalar = 'string' | 'bytes' | 'int32' | 'int64' | 'bool' | 'enum';

/**
 * How a message is written in JSON when not as an object of its fields: `time` and `micro-time` (a
 * Kubernetes `Time` and `MicroTime`, seconds and nanos) as RFC 3339 in UTC, to the second or to the
 * microsecond, absent for the empty message; `text` (a `Quantity`) as its one string field, `absent`
 * when the field is.
 */
export type JsonForm =
  { readonly kind: 'time' | 'micro-time' } | { readonly kind: 'text'; readonly field: string; readonly absent: string };

/** A message: its full protobuf name (`k8s.io.api.core.v1.Pod`) and the fields declared of it. */
export interface MessageType<F extends Fields = Fields, J extends JsonForm | undefined = JsonForm | undefined> {
  readonly name: string;
  readonly fields: F;
  readonly json?: J;
}

/** A `map<string, V>` field: one entry message per key (key 1, value 2). */
export interface MapType {
  readonly mapOf: 'string' | MessageType;
}

/** What a field holds. */
export type FieldType = Scalar | MessageType | MapType;

/** One field of a message, under the name its JSON form gives it. */
export interface FieldSpec {
  readonly number: number;
  readonly type: FieldType;
  /** A `repeated` field: its JSON form is an array. */
  readonly repeated?: true;
  /**
   * Decoded only by a reading that asks for this label (`without` drops such fields), e.g. what a pod
   * asks of a node, read only of a pod that waits for one.
   */
  readonly when?: string;
  /** For a map: only the entries whose key starts with this are kept; the others are stepped over unread. */
  readonly keyPrefix?: string;
}

/** The declared fields of a message, by JSON name. */
export type Fields = { readonly [json: string]: FieldSpec };

/** Declares a message; `json` when its JSON form is not an object of its fields. */
export function message<const F extends Fields, const J extends JsonForm | undefined = undefined>(
  name: string,
  fields: F,
  json?: J,
): MessageType<F, J> {
  return json === undefined ? { name, fields } : { name, fields, json };
}

/** A `map<string, V>` type. */
export function mapOf<const V extends 'string' | MessageType>(value: V): { readonly mapOf: V } {
  return { mapOf: value };
}

/** The message without the fields labelled `label` (see {@link FieldSpec.when}), at every depth. */
export function without<M extends MessageType>(type: M, label: string): M {
  const fields = Object.fromEntries(
    Object.entries(type.fields).flatMap(([name, spec]) => {
      if (spec.when === label) return [];
      const inner = spec.type;
      if (typeof inner === 'object' && 'fields' in inner) return [[name, { ...spec, type: without(inner, label) }]];
      if (typeof inner === 'object' && typeof inner.mapOf === 'object')
        return [[name, { ...spec, type: { mapOf: without(inner.mapOf, label) } }]];
      return [[name, spec]];
    }),
  );
  return { ...type, fields };
}

/** The message reduced to the fields `names`: the part of it some reader needs. */
export function pick<F extends Fields, J extends JsonForm | undefined, const K extends keyof F & string>(
  type: MessageType<F, J>,
  names: readonly K[],
): MessageType<Pick<F, K>, J> {
  const fields = Object.fromEntries(
    names.map((name) => {
      const spec = type.fields[name];
      if (spec === undefined) throw new Error(`${type.name} declares no field ${name}`);
      return [name, spec];
    }),
  ) as Pick<F, K>;
  return { ...type, fields };
}

/**
 * The message reduced to the fields `paths` name, a path stepping into a message field with a dot
 * (`involvedObject.kind`): for a decoder that reads less than the projection, to decide early.
 */
export function pickPaths(type: MessageType, paths: readonly string[]): MessageType {
  const byHead = new Map<string, string[]>();
  for (const path of paths) {
    const [head = '', ...rest] = path.split('.');
    const tails = byHead.get(head) ?? [];
    if (rest.length > 0) tails.push(rest.join('.'));
    byHead.set(head, tails);
  }
  const fields: Record<string, FieldSpec> = {};
  for (const [head, tails] of byHead) {
    const spec = type.fields[head];
    if (spec === undefined) throw new Error(`${type.name} declares no field ${head}`);
    const inner = spec.type;
    fields[head] = tails.length > 0 && isMessage(inner) ? { ...spec, type: pickPaths(inner, tails) } : spec;
  }
  return { ...type, fields };
}

/** The last part of a message's full name: `Pod` for `k8s.io.api.core.v1.Pod`, the Kind it declares. */
export function shortName(type: MessageType): string {
  return type.name.slice(type.name.lastIndexOf('.') + 1);
}

/** Whether a field type is a message. */
export function isMessage(type: FieldType): type is MessageType {
  return typeof type === 'object' && 'fields' in type;
}

/** The messages `roots` reach through their fields and maps, each name once (the first seen), roots first. */
export function messagesOf(roots: readonly MessageType[]): MessageType[] {
  const seen = new Map<string, MessageType>();
  const visit = (type: MessageType): void => {
    if (seen.has(type.name)) return;
    seen.set(type.name, type);
    for (const spec of Object.values(type.fields)) {
      if (isMessage(spec.type)) visit(spec.type);
      else if (typeof spec.type === 'object' && typeof spec.type.mapOf === 'object') visit(spec.type.mapOf);
    }
  };
  roots.forEach(visit);
  return [...seen.values()];
}

declare const VALUE: unique symbol;

/**
 * A field's value in a message's JSON form, as it arrived: unread, of no type a projection may rely
 * on. Only the typed readers (`cluster/encoding/wire.ts`) open it, each checking the shape as it reads.
 */
export interface Value<S extends FieldSpec> {
  readonly [VALUE]?: S;
}

/**
 * A message's JSON form as a projection may read it: exactly its declared fields, each a {@link Value}.
 * A field the declaration lacks cannot be named, so a projection cannot come to read what the
 * decoder never decodes.
 */
export type Wire<M extends MessageType> = { readonly [K in keyof M['fields']]?: Value<M['fields'][K]> };
