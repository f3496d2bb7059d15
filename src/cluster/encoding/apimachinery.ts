/**
 * The apimachinery messages every Kind shares, declared as the doctor reads them (`protobuf/schema.ts`):
 * an object's metadata, times and quantities, a list's metadata, the `Status` of a failed request, and
 * the envelope an API server wraps each protobuf answer in. Numbers are those of the
 * `k8s.io/apimachinery` protobuf definitions; a test holds them against the module's `.proto` files.
 *
 * @module
 */

import { compile, decodeMessage, type Decoded } from '../../protobuf/decode.ts';
import { ProtoReader, ProtobufError } from '../../protobuf/reader.ts';
import { mapOf, message } from '../../protobuf/schema.ts';

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** A point in time to the second; JSON writes it in RFC 3339, UTC. */
export const TIME = message(
  `${META}.Time`,
  { seconds: { number: 1, type: 'int64' }, nanos: { number: 2, type: 'int32' } },
  { kind: 'time' },
);

/** A point in time to the microsecond (an Event's `eventTime`, a series' `lastObservedTime`). */
export const MICRO_TIME = message(
  `${META}.MicroTime`,
  { seconds: { number: 1, type: 'int64' }, nanos: { number: 2, type: 'int32' } },
  { kind: 'micro-time' },
);

/** A resource quantity; JSON writes it as its text (`500m`, `2Gi`). */
export const QUANTITY = message(
  'k8s.io.apimachinery.pkg.api.resource.Quantity',
  { string: { number: 1, type: 'string' } },
  { kind: 'text', field: 'string', absent: '0' },
);

/** Every field of `ObjectMeta` some Kind reads; each Kind picks its own (`kinds/pod-protobuf.ts`, `kinds/event-protobuf.ts`). */
export const OBJECT_META = message(`${META}.ObjectMeta`, {
  name: { number: 1, type: 'string' },
  namespace: { number: 3, type: 'string' },
  uid: { number: 5, type: 'string' },
  creationTimestamp: { number: 8, type: TIME },
  labels: { number: 11, type: mapOf('string') },
  annotations: { number: 12, type: mapOf('string') },
});

/** A list's metadata: where the next page begins. */
export const LIST_META = message(`${META}.ListMeta`, {
  resourceVersion: { number: 2, type: 'string' },
  continue: { number: 3, type: 'string' },
});

/** The answer to a failed request: its message is what API001 quotes. */
export const STATUS = message(`${META}.Status`, { message: { number: 3, type: 'string' } });

/** The type an envelope names: its Kind is all the reader looks at. */
export const TYPE_META = message('k8s.io.apimachinery.pkg.runtime.TypeMeta', { kind: { number: 2, type: 'string' } });

/**
 * The envelope of every protobuf answer, after its magic: the type, the object's own bytes (`raw`),
 * and the encoding of those bytes, which an API server leaves empty: an encoded object is refused.
 */
export const UNKNOWN = message('k8s.io.apimachinery.pkg.runtime.Unknown', {
  typeMeta: { number: 1, type: TYPE_META },
  raw: { number: 2, type: 'bytes' },
  contentEncoding: { number: 3, type: 'string' },
});

/** The four bytes that open every protobuf answer of an API server: `k8s` and a zero byte. */
export const ENVELOPE_MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;

/** Whether `bytes` open with the envelope's magic. */
export function hasMagic(bytes: Uint8Array): boolean {
  return ENVELOPE_MAGIC.every((b, i) => bytes[i] === b);
}

/** The Kind a `TypeMeta`'s bytes name. */
export function kindOf(bytes: Uint8Array, start: number, end: number): string {
  const kind = decodeMessage(TYPE_META, bytes, start, end)['kind'];
  return typeof kind === 'string' ? kind : '';
}

/** A list's metadata (its continue token and resource version) as its JSON holds them. */
export function listMetaOf(bytes: Uint8Array, start: number, end: number): Decoded {
  return decodeMessage(LIST_META, bytes, start, end);
}

/** The Kind an envelope names, and where the object it wraps lies in the bytes. */
export interface Envelope {
  readonly kind: string;
  readonly raw: { readonly start: number; readonly end: number };
}

/** A whole envelope: its Kind and its object's bounds. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (!hasMagic(bytes)) throw new ProtobufError('the answer does not open with the protobuf envelope of an API server');
  const r = new ProtoReader(bytes, ENVELOPE_MAGIC.length);
  const { typeMeta, raw } = UNKNOWN.fields;
  let kind = '';
  let object = { start: 0, end: 0 };
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === typeMeta.number) {
      const at = r.span();
      kind = kindOf(bytes, at.start, at.end);
    } else if (field === raw.number) object = r.span();
    else r.skip();
  }
  return { kind, raw: object };
}

const decodeStatus = compile(STATUS);

/** The message of a `Status` answer in protobuf (a failed request's body), if it is one and has one. */
export function protobufStatusMessage(bytes: Uint8Array): string | undefined {
  try {
    const { kind, raw } = decodeEnvelope(bytes);
    if (kind !== 'Status') return undefined;
    const message = decodeStatus(new ProtoReader(bytes, raw.start, raw.end))['message'];
    return typeof message === 'string' && message !== '' ? message : undefined;
  } catch (err) {
    if (err instanceof ProtobufError) return undefined;
    throw err;
  }
}
