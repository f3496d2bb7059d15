/** EnginePodInjectionAudit (EP): docs/upstream.md, docs/deviations.md#dev-3 (one normalised Event list). */
import { enginePodInjectionAudit } from '../../../src/checks/engine-pod-injection.ts';

import { backend, event, failed, given, injectedEvent, ok, pod, type Case, type CheckTable } from './fixtures.ts';
import type { CacheBackend } from '../../../src/cluster/kinds/cache-backend.ts';
import type { EventRecord } from '../../../src/cluster/kinds/event.ts';
import type { Pod } from '../../../src/cluster/kinds/pod.ts';

const BY = 'inferencecache.io/injected-by';
const BY_UID = 'inferencecache.io/injected-by-uid';

const be = backend({ name: 'be', uid: 'be-uid', matchLabels: { app: 'engine' } });
const engine = (name: string, o: Partial<Pod> = {}) => pod(name, { labels: { app: 'engine' }, ...o });
const annotated = (name: string, by: string, uid: string, o: Partial<Pod> = {}) =>
  engine(name, { annotations: { [BY]: by, [BY_UID]: uid }, ...o });

function audit(backends: readonly CacheBackend[], pods: readonly Pod[], events: readonly EventRecord[] = []): Case['input'] {
  return given({ cacheBackends: ok(backends), pods: ok(pods), events: ok(events) });
}

const P = (name: string, ns = 'ns1') => `pod/${ns}/${name}`;

// Overlapping selectors
const alpha = backend({ name: 'alpha', uid: 'alpha-uid', matchLabels: { app: 'engine' } });
const beta = backend({ name: 'beta', uid: 'beta-uid', matchLabels: { app: 'engine', model: 'qwen' } });
const both = annotated('both', 'ns1/alpha', 'alpha-uid', { labels: { app: 'engine', model: 'qwen' } });

export const enginePodCases: readonly Case[] = [
  {
    name: 'pinned 2.5.11: inj / forged / inj-evt / inj-evt-v1 / uninj / other → 3 EP002, 2 EP001 in pod order',
    input: audit(
      [be, backend({ name: 'plain', uid: 'plain-uid' })],
      [
        annotated('inj', 'ns1/be', 'be-uid'),
        annotated('forged', 'ns1/be', 'wrong-uid'),
        engine('inj-evt'),
        engine('inj-evt-v1'),
        engine('uninj'),
        pod('other', { labels: { app: 'web' } }),
      ],
      // both Event APIs arrive as normalised records of the one list (docs/deviations.md#dev-3)
      [injectedEvent('inj-evt-uid', { name: 'inj-evt' }), injectedEvent('inj-evt-v1-uid', { name: 'inj-evt-v1' })],
    ),
    expected: [
      ['EP002', P('inj'), ['"ns1/be"']],
      ['EP001', P('forged'), ['"be"']],
      ['EP002', P('inj-evt'), ['"be"', 'InjectedByCacheBackend']],
      ['EP002', P('inj-evt-v1'), ['"be"']],
      ['EP001', P('uninj'), ['"be"']],
    ],
  },

  // --- annotation + uid rule
  {
    name: 'right name, wrong uid, no Event → EP001',
    input: audit([be], [annotated('p', 'ns1/be', 'other-uid')]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'right name, wrong uid, with an Event for the pod uid → EP002 (via Event)',
    input: audit([be], [annotated('p', 'ns1/be', 'other-uid')], [injectedEvent('p-uid')]),
    expected: [['EP002', P('p'), ['"be"']]],
  },
  {
    name: 'name annotation only, uid annotation missing → EP001',
    input: audit([be], [engine('p', { annotations: { [BY]: 'ns1/be' } })]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'backend uid empty → annotation never validates, even with an empty uid annotation',
    input: audit([backend({ name: 'be', uid: '', matchLabels: { app: 'engine' } })], [annotated('p', 'ns1/be', '')]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'annotation naming another namespace → EP001',
    input: audit([be], [annotated('p', 'ns2/be', 'be-uid')]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'annotation naming the bare backend name (no namespace) → EP001',
    input: audit([be], [annotated('p', 'be', 'be-uid')]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'annotation naming another backend of the namespace → EP001',
    input: audit(
      [be, backend({ name: 'other', uid: 'other-uid', matchLabels: { app: 'web' } })],
      [annotated('p', 'ns1/other', 'other-uid')],
    ),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'opted-out pod (skip-inject) is audited like any other → EP001',
    input: audit([be], [engine('p', { annotations: { 'inferencecache.io/skip-inject': 'true' } })]),
    expected: [['EP001', P('p')]],
  },

  // --- Event rules
  {
    name: 'Event with kind != Pod is ignored',
    input: audit([be], [engine('p')], [injectedEvent('p-uid', { kind: 'Deployment' })]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'Event with empty uid is ignored (pod uid empty too)',
    input: audit([be], [engine('p', { uid: '' })], [injectedEvent('')]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'Event with another reason is ignored',
    input: audit([be], [engine('p')], [event({ reason: 'Injected', uid: 'p-uid' })]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'Event for an older pod of the same name (other uid) does not mark the new pod',
    input: audit([be], [engine('p', { uid: 'new-uid' })], [injectedEvent('old-uid', { name: 'p' })]),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'Event matched by uid only: namespace/name of the Event and its age do not matter',
    input: audit([be], [engine('p')], [injectedEvent('p-uid', { namespace: 'elsewhere', name: 'x', time: '' })]),
    expected: [['EP002', P('p')]],
  },

  // --- EP003
  {
    name: 'overlapping selectors → exactly one EP003 naming ["alpha" "beta"]',
    input: audit([alpha, beta], [both]),
    expected: [['EP003', P('both'), ['["alpha" "beta"]', '"ns1"']]],
  },
  {
    name: 'overlapping selectors listed beta first → names still ["alpha" "beta"]',
    input: audit([beta, alpha], [both]),
    expected: [['EP003', P('both'), ['["alpha" "beta"]']]],
  },
  {
    name: 'overlap: a pod matching only alpha is judged against alpha alone',
    input: audit([beta, alpha], [both, annotated('only-alpha', 'ns1/alpha', 'alpha-uid')]),
    expected: [
      ['EP003', P('both')],
      ['EP002', P('only-alpha'), ['"ns1/alpha"']],
    ],
  },
  {
    name: 'backends names sorted byte-wise in EP003 (B < a < b)',
    input: audit(
      [
        backend({ name: 'b', uid: 'b', matchLabels: { app: 'engine' } }),
        backend({ name: 'a', uid: 'a', matchLabels: { app: 'engine' } }),
        backend({ name: 'B', uid: 'B', matchLabels: { app: 'engine' } }),
      ],
      [engine('p')],
    ),
    expected: [['EP003', P('p'), ['["B" "a" "b"]']]],
  },

  // --- namespaces and selectors
  {
    name: 'backends in another namespace never match',
    input: audit(
      [backend({ name: 'be', namespace: 'ns2', uid: 'be-uid', matchLabels: { app: 'engine' } })],
      [annotated('p', 'ns2/be', 'be-uid')],
    ),
    expected: [],
  },
  {
    name: 'pods audited in list order across namespaces, each against its own namespace',
    input: audit(
      [be, backend({ name: 'be', namespace: 'ns2', uid: 'be2-uid', matchLabels: { app: 'engine' } })],
      [annotated('q', 'ns2/be', 'be2-uid', { namespace: 'ns2' }), engine('p'), annotated('r', 'ns2/be', 'be-uid', { namespace: 'ns2' })],
    ),
    expected: [
      ['EP002', P('q', 'ns2'), ['"ns2/be"']],
      ['EP001', P('p')],
      ['EP001', P('r', 'ns2')],
    ],
  },
  {
    name: 'selector k:"" matches a pod lacking k',
    input: audit(
      [backend({ name: 'be', uid: 'be-uid', matchLabels: { app: 'engine', tier: '' } })],
      [engine('p'), engine('q', { labels: { app: 'engine', tier: 'x' } })],
    ),
    expected: [['EP001', P('p')]],
  },
  {
    name: 'External backends with a selector are audited too',
    input: audit(
      [backend({ name: 'be', uid: 'be-uid', matchLabels: { app: 'engine' }, remoteStorage: { ownership: 'External' } })],
      [engine('p')],
    ),
    expected: [['EP001', P('p')]],
  },

  // --- read failures
  {
    name: 'backends read failed → API001 CacheBackend',
    input: given({ cacheBackends: failed('forbidden'), pods: failed('x'), events: failed('y') }),
    expected: [['API001', 'CacheBackend', ['forbidden']]],
  },
  {
    name: 'pods read failed → single API001 Pod and nothing else',
    input: given({ cacheBackends: ok([be]), pods: failed('pods is forbidden'), events: failed('events is forbidden') }),
    expected: [['API001', 'Pod', ['pods is forbidden']]],
  },
  {
    name: 'events read failed → single API001 Event even when every pod has a valid annotation',
    input: given({ cacheBackends: ok([be]), pods: ok([annotated('p', 'ns1/be', 'be-uid')]), events: failed('events is forbidden') }),
    expected: [['API001', 'Event', ['events is forbidden']]],
  },
  {
    name: 'no selectored backend → nothing, even when pods and events reads failed',
    input: given({
      cacheBackends: ok([backend({ name: 'plain' }), backend({ name: 'empty', matchLabels: {} })]),
      pods: failed('x'),
      events: failed('y'),
    }),
    expected: [],
  },
  { name: 'no backends at all → nothing', input: given({ pods: failed('x'), events: failed('y') }), expected: [] },

  // --- no Events gathered at all (doctor -f of files without them): decided what needs none
  {
    name: 'no Events given → the annotation still proves injection (EP002), overlap is still EP003, EP001 left undecided',
    input: withoutInjectionEvents(
      audit([alpha, beta], [annotated('inj', 'ns1/alpha', 'alpha-uid', { labels: { app: 'engine' } }), engine('uninj'), both]),
    ),
    expected: [
      ['EP002', P('inj'), ['"ns1/alpha"']],
      ['EP003', P('both'), ['"alpha"', '"beta"']],
    ],
  },
];

/** The input as a run from files that hold no Event has it: the injection Events not gathered. */
function withoutInjectionEvents(input: Case['input']): Case['input'] {
  const { injectionEvents: _dropped, ...state } = input.state;
  return { ...input, state };
}

export const enginePodTable: CheckTable = { check: enginePodInjectionAudit, cases: enginePodCases };
