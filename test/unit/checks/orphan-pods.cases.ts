/** OrphanPodCheck (OP): docs/upstream.md, docs/deviations.md#dev-3 (each Event counted once). */
import { orphanPodCheck } from '../../../src/checks/orphan-pods.ts';

import { HOUR, MINUTE, ago, event, failed, given, ok, type Case, type CheckTable } from './fixtures.ts';
import type { EventRecord } from '../../../src/cluster/kinds/event.ts';

const DAY = 24 * HOUR;
const events = (...items: EventRecord[]) => given({ events: ok(items) });

export const orphanPodCases: readonly Case[] = [
  {
    name: 'in-window NoMatchingCacheBackend Event about a Pod → OP001 with the Event message',
    input: events(event({ name: 'vllm-0', message: 'no CacheBackend in ns1 selects labels app=vllm' })),
    expected: [['OP001', 'pod/ns1/vllm-0', ['no CacheBackend in ns1 selects labels app=vllm']]],
  },
  { name: 'exactly 24h old → counted (inclusive)', input: events(event({ time: ago(DAY) })), expected: [['OP001', 'pod/ns1/p']] },
  { name: '24h + 1ms old → not counted', input: events(event({ time: ago(DAY + 1) })), expected: [] },
  { name: '48h old → not counted', input: events(event({ time: ago(2 * DAY) })), expected: [] },
  { name: 'in the future → counted', input: events(event({ time: ago(-HOUR) })), expected: [['OP001', 'pod/ns1/p']] },
  { name: 'empty time → not counted', input: events(event({ time: '' })), expected: [] },
  { name: 'wrong reason → not counted', input: events(event({ reason: 'InjectedByCacheBackend' })), expected: [] },
  { name: 'reason matched exactly (case) → not counted', input: events(event({ reason: 'nomatchingcachebackend' })), expected: [] },
  { name: 'kind != Pod → not counted', input: events(event({ kind: 'Deployment' })), expected: [] },
  { name: 'uid not required → counted', input: events(event({ uid: '' })), expected: [['OP001', 'pod/ns1/p']] },
  {
    name: 'two Events about the same pod → two OP001 (no de-duplication), in list order',
    input: events(event({ message: 'first' }), event({ message: 'second', time: ago(2 * MINUTE) })),
    expected: [
      ['OP001', 'pod/ns1/p', ['first']],
      ['OP001', 'pod/ns1/p', ['second']],
    ],
  },
  {
    name: 'each Event counted once (one normalised list): three pods → three findings in order',
    input: events(event({ name: 'c' }), event({ name: 'a', namespace: 'ns2' }), event({ name: 'b' })),
    expected: [
      ['OP001', 'pod/ns1/c'],
      ['OP001', 'pod/ns2/a'],
      ['OP001', 'pod/ns1/b'],
    ],
  },
  {
    name: 'involved namespace empty → resource pod//name',
    input: events(event({ namespace: '', name: 'lonely' })),
    expected: [['OP001', 'pod//lonely']],
  },
  {
    name: 'mixed list: only the qualifying Events count',
    input: events(
      event({ name: 'old', time: ago(DAY + 1) }),
      event({ name: 'svc', kind: 'Service' }),
      event({ name: 'ok' }),
      event({ name: 'other', reason: 'Scheduled' }),
    ),
    expected: [['OP001', 'pod/ns1/ok']],
  },
  {
    name: 'events read failed → API001 Event',
    input: given({ events: failed('events is forbidden') }),
    expected: [['API001', 'Event', ['events is forbidden']]],
  },
  {
    name: 'runs with zero backends',
    input: given({ cacheBackends: ok([]), events: ok([event()]) }),
    expected: [['OP001', 'pod/ns1/p']],
  },
  {
    name: 'runs even when the backends read failed',
    input: given({ cacheBackends: failed('x'), pods: failed('y'), events: ok([event()]) }),
    expected: [['OP001', 'pod/ns1/p']],
  },
  { name: 'no events → nothing', input: given({}), expected: [] },
];

export const orphanPodTable: CheckTable = { check: orphanPodCheck, cases: orphanPodCases };
