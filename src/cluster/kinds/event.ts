/**
 * The Events: what the checks read of one (its reason, message, time and the object it is about). A
 * busy cluster has tens of thousands, read once per run in protobuf (`event-protobuf.ts`) or JSON and
 * kept only as the views the checks declare (`state/event-views.ts`).
 *
 * @module
 */

import { cutText } from '../../go/cut.ts';
import { messageAt, stringAt, timeAt, wireOf } from '../encoding/wire.ts';
import { Interner } from '../../text/interner.ts';
import { CORE } from './access.ts';
import { EVENT, EVENT_LIST, decodeEvent } from './event-protobuf.ts';
import { defineKind } from './kind.ts';

/**
 * An Event, normalised from the core/v1 view (the events.k8s.io/v1 API serves the same objects, so one
 * view is read and each Event counted once). `time` is the first set of series.lastObservedTime,
 * lastTimestamp, eventTime and creationTimestamp, RFC 3339; empty when none is set.
 */
export interface EventRecord {
  readonly reason: string;
  readonly message: string;
  readonly time: string;
  readonly involved: { readonly kind: string; readonly namespace: string; readonly name: string; readonly uid: string };
}

/**
 * Projects a core/v1 Event; its time is the first set of the fields the Event API defines for it.
 * Undefined for an Event `wanted` turns down (by its reason and the Kind it is about): it is dropped
 * as it is read, before anything else of it is looked at.
 */
export function projectEvent(
  raw: unknown,
  wanted: (reason: string, involvedKind: string) => boolean = () => true,
  interner = new Interner(0),
): EventRecord | undefined {
  const event = wireOf(EVENT, raw);
  const involved = messageAt(event?.involvedObject);
  const reason = stringAt(event?.reason);
  if (!wanted(reason, stringAt(involved?.kind))) return undefined;
  const time =
    timeAt(messageAt(event?.series)?.lastObservedTime) ??
    timeAt(event?.lastTimestamp) ??
    timeAt(event?.eventTime) ??
    timeAt(messageAt(event?.metadata)?.creationTimestamp) ??
    '';
  return {
    reason: interner.string(reason),
    message: interner.string(cutText(stringAt(event?.message))),
    time: interner.string(time),
    involved: {
      kind: interner.string(stringAt(involved?.kind)),
      namespace: interner.string(stringAt(involved?.namespace)),
      name: stringAt(involved?.name),
      uid: stringAt(involved?.uid),
    },
  };
}

/** The Events: listed once per run, kept as the views the checks declare (`state/event-views.ts`). */
export const EVENT_KIND = defineKind({
  kind: 'Event',
  access: { ...CORE, resource: 'events', verbs: ['list'], namespaced: true },
  reads: 'views',
  project: (raw: unknown) => projectEvent(raw),
  metadataFollowedBy: 'involvedObject',
  protobuf: { list: EVENT_LIST, decode: decodeEvent },
  dump: { write: 'whole' },
});
