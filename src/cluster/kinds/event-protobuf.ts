/**
 * The core/v1 Events of a protobuf list, decoded to the JSON shape `projectEvent` reads: its creation,
 * the object it is about, reason, message and times. The rest is stepped over by its length, never
 * read. Field numbers are those of `k8s.io/api/core/v1` (docs/protobuf.md).
 *
 * @module
 */

import { decodeObjectMeta, setTime, stringField, stringsOf, type Decoded, type MetaFields } from '../encoding/protobuf-meta.ts';
import { ProtoReader, inner } from '../../protobuf/reader.ts';

/** What `projectEvent` reads of an Event's metadata: its creation, the last of the times it falls back on. */
const EVENT_META: MetaFields = { identity: false, creation: true, labels: false, annotations: () => false };

const decodeEventMeta = (r: ProtoReader) => decodeObjectMeta(r, EVENT_META);
const decodeObjectReference = stringsOf({ 1: 'kind', 2: 'namespace', 3: 'name', 4: 'uid' });
/** An ObjectReference's Kind. */
const kindOf = (r: ProtoReader): string => stringField(r, 1);

/**
 * The Event decoder of a run whose views keep only the Events `wanted` accepts (by reason and the Kind
 * they are about): an Event it turns down is decoded to those two fields only, which is all
 * `projectEvent` reads of it before dropping it.
 */
export function eventDecoder(
  wanted: (reason: string, involvedKind: string) => boolean,
): (bytes: Uint8Array, start: number, end: number) => Decoded {
  return (bytes, start, end) => {
    const r = new ProtoReader(bytes, start, end);
    let reason = '';
    let kind = '';
    for (let field = r.next(); field !== 0; field = r.next()) {
      if (field === 3) reason = r.string();
      else if (field === 2) kind = inner(r, kindOf);
      else r.skip();
    }
    return wanted(reason, kind) ? decodeEvent(bytes, start, end) : { reason, involvedObject: { kind } };
  };
}

/** A core/v1 Event's bytes as the JSON shape `projectEvent` reads. */
export function decodeEvent(bytes: Uint8Array, start: number, end: number): Decoded {
  const r = new ProtoReader(bytes, start, end);
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 1) out['metadata'] = inner(r, decodeEventMeta);
    else if (field === 2) out['involvedObject'] = inner(r, decodeObjectReference);
    else if (field === 3) out['reason'] = r.string();
    else if (field === 4) out['message'] = r.string();
    else if (field === 7) setTime(out, 'lastTimestamp', r, false);
    else if (field === 10) setTime(out, 'eventTime', r, true);
    else if (field === 11) out['series'] = inner(r, decodeSeries);
    else r.skip();
  }
  return out;
}

function decodeSeries(r: ProtoReader): Decoded {
  const out: Decoded = {};
  for (let field = r.next(); field !== 0; field = r.next()) {
    if (field === 2) setTime(out, 'lastObservedTime', r, true);
    else r.skip();
  }
  return out;
}
