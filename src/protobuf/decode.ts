/**
 * Decoders compiled from message declarations (`schema.ts`): each turns a message's bytes into its
 * JSON form, holding only the declared fields; every other field is stepped over by its length, never
 * looked into. A field named twice keeps its last value, a map key named twice its last entry, as Go
 * decodes them. The bytes are hostile: the reader (`reader.ts`) bounds every length, and a declared
 * field of the wrong wire type is an error, as is anything the reader refuses.
 *
 * @module
 */

import { LENGTH_DELIMITED, ProtoReader, ProtobufError, inner } from './reader.ts';
import { isMessage, type FieldSpec, type JsonForm, type MessageType } from './schema.ts';

/** A message's JSON form, holding its declared fields. */
export type Decoded = Record<string, unknown>;

/** Reads the value of one field (its key just read) into `out`. */
type FieldReader = (r: ProtoReader, out: Decoded) => void;

/** Reads a message (or the value a map entry holds) at the reader, as its JSON form. */
type ValueReader = (r: ProtoReader) => unknown;

/** The decoders compiled so far, by declaration. */
const compiled = new WeakMap<MessageType, (r: ProtoReader) => Decoded>();

/** Seconds since the epoch in RFC 3339, UTC, to the second and without the zone, for the last few thousand seconds seen. */
const formatted = new Map<number, string>();
const FORMATTED_LIMIT = 4096;

/** `2026-12-05T11:14:56` for its seconds since the epoch: an object's times, and a list's, cluster in a few seconds. */
export function wholeSeconds(seconds: number): string {
  let text = formatted.get(seconds);
  if (text !== undefined) return text;
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new ProtobufError(`a time of ${seconds} seconds, out of range`);
  text = date.toISOString().slice(0, 19);
  if (formatted.size >= FORMATTED_LIMIT) formatted.clear();
  formatted.set(seconds, text);
  return text;
}

/**
 * A time message (seconds 1, nanos 2) as JSON writes it, or undefined for the empty message, which is
 * the zero time (JSON writes `null`).
 */
function timeOf(r: ProtoReader, micro: boolean): string | undefined {
  const outer = r.enter();
  const empty = r.pos === r.end;
  let seconds = 0;
  let nanos = 0;
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1) seconds = r.number();
    else if (field === 2) nanos = r.number();
    else r.skip();
  }
  r.leave(outer);
  if (empty) return undefined;
  return micro ? `${wholeSeconds(seconds)}.${String(Math.floor(nanos / 1000) % 1_000_000).padStart(6, '0')}Z` : `${wholeSeconds(seconds)}Z`;
}

/** The string field `number` of the message at the reader, `absent` when it has none (the last when named twice). */
function textOf(r: ProtoReader, number: number, absent: string): string {
  const outer = r.enter();
  let value = absent;
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === number) value = r.string();
    else r.skip();
  }
  r.leave(outer);
  return value;
}

/** The reader of a message value by its JSON form. */
function messageValue(type: MessageType): ValueReader {
  const form: JsonForm | undefined = type.json;
  if (form === undefined) {
    // Compiled on first use, so that declaring a message never compiles more than is read.
    let decode: ((r: ProtoReader) => Decoded) | undefined;
    return (r) => inner(r, (decode ??= compile(type)));
  }
  if (form.kind === 'text') {
    const spec = type.fields[form.field];
    if (spec === undefined) throw new Error(`${type.name} declares no field ${form.field}`);
    return (r) => textOf(r, spec.number, form.absent);
  }
  const micro = form.kind === 'micro-time';
  return (r) => timeOf(r, micro);
}

/** What a map entry without its value holds: the zero of the value's type, as its JSON would. */
function zeroOf(value: 'string' | MessageType): unknown {
  if (value === 'string') return '';
  return value.json?.kind === 'text' ? value.json.absent : {};
}

/** The reader of one map entry (key 1, value 2), adding it to the field's object unless `keyPrefix` turns its key down. */
function mapEntryReader(json: string, value: 'string' | MessageType, keyPrefix: string | undefined): FieldReader {
  const read: ValueReader = value === 'string' ? (r) => r.string() : messageValue(value);
  const zero = zeroOf(value);
  return (r, out) => {
    const outer = r.enter();
    let key = '';
    // Where the value's field begins, read once the key says it is kept.
    let at = -1;
    let fieldAt = r.pos;
    for (let field = r.next(); field !== 0; fieldAt = r.pos, field = r.next()) {
      if (field === 1) key = r.string();
      else {
        if (field === 2 && r.wireType === LENGTH_DELIMITED) at = fieldAt;
        r.skip();
      }
    }
    if (keyPrefix === undefined || key.startsWith(keyPrefix)) {
      let v: unknown = zero;
      if (at >= 0) {
        r.pos = at;
        r.next();
        v = read(r);
      }
      ((out[json] ??= {}) as Decoded)[key] = v;
    }
    r.leave(outer);
  };
}

/** The reader of a scalar value. */
function scalarValue(type: Exclude<FieldSpec['type'], MessageType | { readonly mapOf: unknown }>): ValueReader {
  switch (type) {
    case 'string':
      return (r) => r.string();
    case 'bytes':
      return (r) => {
        const { start, end } = r.span();
        return r.bytes.toString('base64', start, end);
      };
    case 'int32':
    case 'int64':
      return (r) => r.number();
    case 'enum':
      return (r) => r.int32();
    case 'bool':
      return (r) => r.number() !== 0;
  }
}

/** The reader of one declared field, under its JSON name. */
function fieldReader(json: string, spec: FieldSpec): FieldReader {
  const { type } = spec;
  if (typeof type === 'object' && !isMessage(type)) return mapEntryReader(json, type.mapOf, spec.keyPrefix);
  // The commonest fields get readers of their own: a list of thousands of objects reads them all.
  if (type === 'string' && spec.repeated !== true) {
    return (r, out) => {
      out[json] = r.string();
    };
  }
  if (isMessage(type) && type.json === undefined) {
    let decode: ((r: ProtoReader) => Decoded) | undefined;
    if (spec.repeated === true) {
      return (r, out) => {
        const value = inner(r, (decode ??= compile(type)));
        const list = out[json] as unknown[] | undefined;
        if (list === undefined) out[json] = [value];
        else list.push(value);
      };
    }
    return (r, out) => {
      out[json] = inner(r, (decode ??= compile(type)));
    };
  }
  const read = isMessage(type) ? messageValue(type) : scalarValue(type);
  if (spec.repeated === true) {
    return (r, out) => {
      ((out[json] ??= []) as unknown[]).push(read(r));
    };
  }
  if (isMessage(type) && type.json !== undefined && type.json.kind !== 'text') {
    // A time: an empty one is the zero time, which JSON leaves out, as a null reads.
    return (r, out) => {
      const value = read(r);
      if (value !== undefined) out[json] = value;
    };
  }
  return (r, out) => {
    out[json] = read(r);
  };
}

/**
 * The decoder of a message declaration: reads the message the reader stands in, to its end, into its
 * JSON form. Compiled once per declaration.
 */
export function compile(type: MessageType): (r: ProtoReader) => Decoded {
  const known = compiled.get(type);
  if (known !== undefined) return known;
  // One slot per field number up to the highest declared, filled: a packed array is read the fastest.
  const highest = Math.max(0, ...Object.values(type.fields).map((spec) => spec.number));
  const slots: (FieldReader | undefined)[] = Array.from({ length: highest + 1 }, () => undefined);
  for (const [json, spec] of Object.entries(type.fields)) slots[spec.number] = fieldReader(json, spec);
  const decode = (r: ProtoReader): Decoded => {
    const out: Decoded = {};
    for (let field = r.next(); field !== 0; field = r.next()) {
      const read = slots[field];
      if (read === undefined) r.skip();
      else read(r, out);
    }
    return out;
  };
  compiled.set(type, decode);
  return decode;
}

/** Decodes `bytes[start, end)` as a message of `type`. */
export function decodeMessage(type: MessageType, bytes: Uint8Array, start = 0, end = bytes.length): Decoded {
  return compile(type)(new ProtoReader(bytes, start, end));
}
