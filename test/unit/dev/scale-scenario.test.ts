// The scale scenario's shapes (dev/cluster/scale-scenario.ts): `--injection` as the bench reads it, which
// engine pods a mix marks how, and the objects a shape builds, counted against what `expectedCounts`
// says the doctor must find. (That the doctor finds exactly that: test/process/scale-shapes.test.ts
// from files, test/integration/scale.test.ts against a control plane.)
import { describe, expect, it } from 'vitest';
import {
  BENCH_SHAPE,
  ENVELOPE,
  INFERENCE_SHAPE,
  engineCount,
  expectedCounts,
  formatMix,
  injectionOf,
  parseMix,
  scaled,
  scenarioObjects,
  type ScaleShape,
} from '../../../dev/cluster/scale-scenario.ts';

describe('--injection', () => {
  it.each([
    ['annotation:9,none:1', { annotation: 9, event: 0, none: 1 }],
    ['annotation:3,event:1,none:1', { annotation: 3, event: 1, none: 1 }],
    ['none:1, event:2', { annotation: 0, event: 2, none: 1 }],
    ['event:1', { annotation: 0, event: 1, none: 0 }],
  ])('reads %s', (text, mix) => {
    expect(parseMix(text)).toEqual(mix);
    expect(parseMix(formatMix(mix))).toEqual(mix);
  });

  it.each(['', 'annotation', 'annotation:-1', 'annotation:1.5', 'webhook:1', 'annotation:0,none:0', 'annotation:99999'])(
    'refuses %j',
    (text) => {
      expect(() => parseMix(text)).toThrow(/--injection/);
    },
  );
});

describe('which engine pods a mix marks how', () => {
  it('the bench shape leaves the first of every ten without a marker, as the scenario always did', () => {
    const marks = Array.from({ length: 20 }, (_, j) => injectionOf(j, BENCH_SHAPE.injection));
    expect(marks.map((m, j) => [j, m]).filter(([, m]) => m !== 'annotation')).toEqual([
      [0, 'none'],
      [10, 'none'],
    ]);
  });

  it('the inference shape marks one in five by nothing, one by an Event, three by the annotation', () => {
    expect(Array.from({ length: 10 }, (_, j) => injectionOf(j, INFERENCE_SHAPE.injection))).toEqual([
      'none',
      'event',
      'annotation',
      'annotation',
      'annotation',
      'none',
      'event',
      'annotation',
      'annotation',
      'annotation',
    ]);
  });

  it.each([
    [0, 0],
    [1, 200],
    [50, 10_000],
    [100, 20_000],
  ])('%i%% of 20,000 pods are %i engine pods', (enginePercent, engines) => {
    expect(engineCount({ ...scaled(1), pods: 20_000 }, { ...BENCH_SHAPE, enginePercent })).toBe(engines);
  });
});

/** What the objects of a scenario hold, counted. */
function census(objects: Iterable<Record<string, unknown>>) {
  const out = { engines: 0, annotated: 0, injectionEvents: 0, eventsForLivePods: 0, nodes: 0, podsOnMissingNodes: 0 };
  const podUids = new Set<string>();
  const nodeNames = new Set<string>();
  const pods: { node: string }[] = [];
  const injection: string[] = [];
  for (const o of objects) {
    const meta = o['metadata'] as { name: string; uid: string; annotations?: Record<string, string>; labels?: Record<string, string> };
    if (o['kind'] === 'Node') {
      out.nodes++;
      nodeNames.add(meta.name);
    }
    if (o['kind'] === 'Pod') {
      podUids.add(meta.uid);
      pods.push({ node: (o['spec'] as { nodeName: string }).nodeName });
      if (meta.labels?.['inferencecache.io/cache-domain'] !== undefined) out.engines++;
      if (meta.annotations?.['inferencecache.io/injected-by'] !== undefined) out.annotated++;
    }
    if (o['kind'] === 'Event' && o['reason'] === 'InjectedByCacheBackend') {
      out.injectionEvents++;
      injection.push((o['involvedObject'] as { uid: string }).uid);
    }
  }
  out.eventsForLivePods = injection.filter((uid) => podUids.has(uid)).length;
  out.podsOnMissingNodes = nodeNames.size === 0 ? 0 : pods.filter((p) => !nodeNames.has(p.node)).length;
  return out;
}

describe('the objects of a shape', () => {
  const size = scaled(0.02);
  const shapes: [string, ScaleShape][] = [
    ['the bench shape', BENCH_SHAPE],
    ['the inference shape', INFERENCE_SHAPE],
    ['no engine pods', { enginePercent: 0, injection: INFERENCE_SHAPE.injection }],
    ['only engine pods, each injected by an Event', { enginePercent: 100, injection: { annotation: 0, event: 1, none: 0 } }],
    ['80% engine pods, half not injected', { enginePercent: 80, injection: { annotation: 1, event: 0, none: 1 } }],
  ];

  it.each(shapes)('%s: engine pods, markers and findings agree', (_, shape) => {
    const got = census(scenarioObjects(size, shape));
    const engines = engineCount(size, shape);
    const marked = (kind: 'annotation' | 'event' | 'none') =>
      Array.from({ length: engines }, (_, j) => injectionOf(j, shape.injection)).filter((m) => m === kind).length;
    expect(got.engines).toBe(engines);
    expect(got.annotated).toBe(marked('annotation'));
    expect(got.injectionEvents).toBe(marked('event'));
    expect(got.eventsForLivePods).toBe(got.injectionEvents);
    const want = expectedCounts(size, shape);
    expect(want['EP001']).toBe(marked('none'));
    expect((want['EP001'] ?? 0) + (want['EP002'] ?? 0)).toBe(engines);
    expect((want['CB002'] ?? 0) + (want['CB006'] ?? 0)).toBe(size.backends);
    if (engines === 0) expect(want['CB002']).toBe(size.backends);
  });

  it('the envelope spreads its pods over Nodes that exist, 30 to a node', () => {
    const small = scaled(0.01, ENVELOPE);
    expect(small.nodes).toBe(50);
    const got = census(scenarioObjects(small, INFERENCE_SHAPE));
    expect(got.nodes).toBe(50);
    expect(got.podsOnMissingNodes).toBe(0);
    expect(ENVELOPE.pods / ENVELOPE.nodes).toBe(30);
  });

  it('the sizes of the bench before the envelope have no Node objects, as they never had', () => {
    expect(census(scenarioObjects(scaled(0.02), BENCH_SHAPE)).nodes).toBe(0);
  });
});
