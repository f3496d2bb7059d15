/**
 * The apimachinery messages every Kind shares, decoded to the shape their JSON has: an object's
 * metadata, times, a list's metadata, the `Status` of a failed request, and the envelope an API
 * server wraps each protobuf answer in. Field numbers are those of the `k8s.io/apimachinery`
 * protobuf definitions (docs/protobuf.md).
 *
 * @module
 */

import { LENGTH_DELIMITED, ProtoReader, ProtobufError, inner } from '../../protobuf/reader.ts';

/** The four bytes that open every protobuf answer of an API server: `k8s` and a zero byte. */
export const ENVELOPE_MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;

/** What the decoders build: the JSON shape, holding only the fields some projection reads. */
export type Decoded = Record<string, unknown>;

/** The string field numbered `number` of the message `r` reads, `absent` when it has none (the last when named twice). */
export function stringField(r: ProtoReader, number: number, absent = ''): string {
  let value = absent;
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === number) value = r.string();
    else r.skip();
  }
  return value;
}

/**
 * The decoder of a message whose fields read are all strings, each set under its JSON key: `keys`
 * maps field numbers to keys. Most small messages of an object are of this kind.
 */
export function stringsOf(keys: Readonly<Record<number, string>>): (r: ProtoReader) => Decoded {
  return (r) => {
    const out: Decoded = {};
    for (let field = r.next(); field !== 0; field = r.next()) {
      const key = keys[field];
      if (key === undefined) r.skip();
      else out[key] = r.string();
    }
    return out;
  };
}

/** Which ObjectMeta fields a Kind's projection reads. */
export interface MetaFields {
  /** Whether it reads the name, namespace and uid. */
  readonly identity: boolean;
  readonly creation: boolean;
  readonly labels: boolean;
  /** The annotations it reads, by key; the values of the others are stepped over unread. */
  readonly annotations: (key: string) => boolean;
}

/** The ObjectMeta fields a projection reads (see {@link MetaFields}). */
export function decodeObjectMeta(r: ProtoReader, fields: MetaFields): Decoded {
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1 && fields.identity) out['name'] = r.string();
    else if (field === 3 && fields.identity) out['namespace'] = r.string();
    else if (field === 5 && fields.identity) out['uid'] = r.string();
    else if (field === 8 && fields.creation) setTime(out, 'creationTimestamp', r, false);
    else if (field === 11 && fields.labels) mapEntry((out['labels'] ??= {}) as Decoded, r, stringValue);
    else if (field === 12) mapEntry((out['annotations'] ??= {}) as Decoded, r, stringValue, fields.annotations);
    else r.skip();
  }
  return out;
}

/** A string as a map's value: a `map<string, string>` entry's field 2. */
export function stringValue(r: ProtoReader): string {
  return r.string();
}

/** A Quantity as a map's value: its one field, the quantity's text, which is what its JSON is. */
export function quantityValue(r: ProtoReader): string {
  return inner(r, quantityText);
}

const quantityText = (r: ProtoReader) => stringField(r, 1, '0');

/**
 * One entry of a map field (a message of key = 1, value = 2) added to `into`; a key named again
 * replaces the earlier value, as Go's decoding of a map does. An entry without a value holds the
 * value type's zero, as its JSON would: `""` for a string, `"0"` for a Quantity.
 */
export function mapEntry(into: Decoded, r: ProtoReader, value: (r: ProtoReader) => string, keep?: (key: string) => boolean): void {
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
  if (keep === undefined || keep(key)) {
    let v: string | undefined;
    if (at >= 0) {
      r.pos = at;
      r.next();
      v = value(r);
    }
    into[key] = v ?? (value === quantityValue ? '0' : '');
  }
  r.leave(outer);
}

/**
 * A `Time` (micro: a `MicroTime`) set on `into` as the API server's JSON writes it: RFC 3339 in UTC,
 * to the second (micro: to the microsecond). An empty message is the zero time, which JSON writes as
 * null: left unset, as a null reads.
 */
export function setTime(into: Decoded, key: string, r: ProtoReader, micro: boolean): void {
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
  if (!empty)
    into[key] = micro
      ? `${wholeSeconds(seconds)}.${String(Math.floor(nanos / 1000) % 1_000_000).padStart(6, '0')}Z`
      : `${wholeSeconds(seconds)}Z`;
}

/** Times formatted lately, by their seconds: an object's times, and a list's, cluster in a few seconds. */
const formatted = new Map<number, string>();

/** How many formatted times are kept before they are dropped. */
const FORMATTED_LIMIT = 4096;

/** Seconds since the epoch in RFC 3339, UTC, without the zone: `2026-12-05T11:14:56`. */
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

/** A list's metadata: its continue token and resource version, as its JSON holds them. */
export const decodeListMeta = stringsOf({ 2: 'resourceVersion', 3: 'continue' });

/** The Kind an envelope names, and where the object it wraps lies in the bytes. */
export interface Envelope {
  readonly kind: string;
  readonly raw: { readonly start: number; readonly end: number };
}

/** The type an envelope's TypeMeta names: its Kind. */
export const decodeTypeMetaKind = (r: ProtoReader): string => stringField(r, 2);

/** Whether `bytes` open with the envelope's magic. */
export function hasMagic(bytes: Uint8Array): boolean {
  return ENVELOPE_MAGIC.every((b, i) => bytes[i] === b);
}

/** A whole envelope: its Kind and its object's bounds. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (!hasMagic(bytes)) throw new ProtobufError('the answer does not open with the protobuf envelope of an API server');
  const r = new ProtoReader(bytes, ENVELOPE_MAGIC.length);
  let kind = '';
  let raw = { start: 0, end: 0 };
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1) kind = inner(r, decodeTypeMetaKind);
    else if (field === 2) raw = r.span();
    else r.skip();
  }
  return { kind, raw };
}

/** The message of a `Status` answer in protobuf (a failed request's body), if it is one and has one. */
export function protobufStatusMessage(bytes: Uint8Array): string | undefined {
  try {
    const { kind, raw } = decodeEnvelope(bytes);
    if (kind !== 'Status') return undefined;
    const message = stringField(new ProtoReader(bytes, raw.start, raw.end), 3);
    return message === '' ? undefined : message;
  } catch (err) {
    if (err instanceof ProtobufError) return undefined;
    throw err;
  }
}
