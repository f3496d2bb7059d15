/**
 * The core/v1 Event as the doctor reads it in protobuf, declared field by field (`protobuf/schema.ts`):
 * its creation, the object it is about, reason, message and times. Everything else is stepped over by
 * its length, never read. Numbers are those of `k8s.io/api/core/v1`.
 *
 * @module
 */

import { compile, type Decoded } from '../../protobuf/decode.ts';
import { ProtoReader } from '../../protobuf/reader.ts';
import { message, pick, pickPaths } from '../../protobuf/schema.ts';
import { LIST_META, MICRO_TIME, OBJECT_META, TIME } from '../encoding/apimachinery.ts';

const CORE = 'k8s.io.api.core.v1';

export const OBJECT_REFERENCE = message(`${CORE}.ObjectReference`, {
  kind: { number: 1, type: 'string' },
  namespace: { number: 2, type: 'string' },
  name: { number: 3, type: 'string' },
  uid: { number: 4, type: 'string' },
});

export const EVENT_SERIES = message(`${CORE}.EventSeries`, { lastObservedTime: { number: 2, type: MICRO_TIME } });

/** The Event, every field the doctor reads of it; of its metadata only the creation, the last of its times. */
export const EVENT = message(`${CORE}.Event`, {
  metadata: { number: 1, type: pick(OBJECT_META, ['creationTimestamp']) },
  involvedObject: { number: 2, type: OBJECT_REFERENCE },
  reason: { number: 3, type: 'string' },
  message: { number: 4, type: 'string' },
  lastTimestamp: { number: 7, type: TIME },
  eventTime: { number: 10, type: MICRO_TIME },
  series: { number: 11, type: EVENT_SERIES },
});

/** A list of Events, as the API server answers one page. */
export const EVENT_LIST = message(`${CORE}.EventList`, {
  metadata: { number: 1, type: LIST_META },
  items: { number: 2, type: EVENT, repeated: true },
});

const decodeFull = compile(EVENT);
/** What tells whether a run keeps an Event: its reason and the Kind of the object it is about. */
const decodeFilter = compile(pickPaths(EVENT, ['reason', 'involvedObject.kind']));

/** A core/v1 Event's bytes as the JSON form `projectEvent` reads. */
export function decodeEvent(bytes: Uint8Array, start: number, end: number): Decoded {
  return decodeFull(new ProtoReader(bytes, start, end));
}

/**
 * The Event decoder of a run whose views keep only the Events `wanted` accepts (by reason and the Kind
 * they are about): an Event it turns down is decoded to those two fields only, which is all
 * `projectEvent` reads of it before dropping it.
 */
export function eventDecoder(
  wanted: (reason: string, involvedKind: string) => boolean,
): (bytes: Uint8Array, start: number, end: number) => Decoded {
  return (bytes, start, end) => {
    const first = decodeFilter(new ProtoReader(bytes, start, end));
    const reason = first['reason'];
    const kind = (first['involvedObject'] as Decoded | undefined)?.['kind'];
    return wanted(typeof reason === 'string' ? reason : '', typeof kind === 'string' ? kind : '') ? decodeEvent(bytes, start, end) : first;
  };
}
