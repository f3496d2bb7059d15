/**
 * The views of the one Event list a run reads: every Event, or only the Events of one reason about
 * Pods. A busy cluster has tens of thousands of Events; an Event no declared view holds is dropped the
 * moment it is read.
 *
 * @module
 */

import { INJECTED_EVENT_REASON, NO_MATCH_EVENT_REASON } from '../kinds/install.ts';
import type { EventRecord } from '../kinds/event.ts';
import type { Read } from '../kinds/kind.ts';

/** The reads that are views of the Event list. */
export const EVENT_VIEWS = ['events', 'injectionEvents', 'noMatchEvents'] as const;

/** The name of one view of the Event list. */
export type EventViewName = (typeof EVENT_VIEWS)[number];

/** The views that keep the Events of one reason, about Pods, and that reason. */
const REASON_OF = {
  injectionEvents: INJECTED_EVENT_REASON,
  noMatchEvents: NO_MATCH_EVENT_REASON,
} as const satisfies Readonly<Record<Exclude<EventViewName, 'events'>, string>>;

/** The views a run asked for, each as it ends up in the state. */
export type EventViews = { readonly [K in EventViewName]?: Read<EventRecord> };

/** Whether some view of `views` holds an Event of this reason about an object of this Kind. */
export function eventWanted(views: ReadonlySet<EventViewName>): (reason: string, involvedKind: string) => boolean {
  if (views.has('events')) return () => true;
  const reasons = new Set<string>(
    Object.entries(REASON_OF).flatMap(([view, reason]) => (views.has(view as EventViewName) ? [reason] : [])),
  );
  return (reason, kind) => kind === 'Pod' && reasons.has(reason);
}

/** The views of an Event list, each in list order. */
export function eventViews(read: Read<EventRecord>, views: ReadonlySet<EventViewName>): EventViews {
  const out: { -readonly [K in EventViewName]?: Read<EventRecord> } = {};
  for (const view of views) {
    if (!read.ok || view === 'events') {
      out[view] = read;
      continue;
    }
    const reason = REASON_OF[view];
    out[view] = { ok: true, items: read.items.filter((e) => e.reason === reason && e.involved.kind === 'Pod') };
  }
  return out;
}
