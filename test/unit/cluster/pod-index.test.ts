// The pod index against the rule it indexes: for random pods and CacheBackends, every selection it
// reports equals the one found by matching every pod against every selector of its namespace; plus
// the cases a random draw may miss, and the promise that a run's lists are indexed once.
import { describe, expect, it } from 'vitest';
import { engineSelectorSelects, hasSelector } from '../../../src/cluster/kinds/label-selector.ts';
import { podIndex } from '../../../src/cluster/state/pod-index.ts';

import { seededRandom } from '../../support/seeded-random.ts';
import type { CacheBackend } from '../../../src/cluster/kinds/cache-backend.ts';
import type { Pod } from '../../../src/cluster/kinds/pod.ts';

const pod = (namespace: string, name: string, labels: Record<string, string>): Pod => ({
  namespace,
  name,
  uid: `${namespace}/${name}`,
  labels,
  annotations: {},
});
const backend = (namespace: string, name: string, matchLabels?: Record<string, string>): CacheBackend => ({
  namespace,
  name,
  uid: `b-${namespace}/${name}`,
  conditions: [],
  ...(matchLabels === undefined ? {} : { matchLabels }),
});
const names = (pods: readonly { name: string }[]) => pods.map((p) => p.name);

describe('podIndex', () => {
  it('selects by the upstream rule: equality pairs, a missing label reads as empty, an empty selector selects nothing', () => {
    const pods = [
      pod('ns', 'a', { app: 'engine', tier: 'gpu' }),
      pod('ns', 'b', { app: 'engine' }),
      pod('ns', 'c', { app: 'web' }),
      pod('other', 'd', { app: 'engine' }),
    ];
    const engine = backend('ns', 'engine', { app: 'engine' });
    const noTier = backend('ns', 'no-tier', { app: 'engine', tier: '' });
    const empty = backend('ns', 'empty', {});
    const none = backend('ns', 'none');
    const index = podIndex(pods, [engine, noTier, empty, none]);
    expect(names(index.selectedBy(engine))).toEqual(['a', 'b']);
    expect(names(index.selectedBy(noTier))).toEqual(['b']);
    expect(index.selectedBy(empty)).toEqual([]);
    expect(index.selectedBy(none)).toEqual([]);
    expect(names(index.selectorsOf(pods[1] as Pod))).toEqual(['engine', 'no-tier']);
    expect(index.selectorsOf(pods[3] as Pod)).toEqual([]);
  });

  it('reads only a label the pod has: a key such as toString is a label like any other', () => {
    const pods = [pod('ns', 'plain', { app: 'x' }), pod('ns', 'labelled', { app: 'x', toString: 'yes' })];
    const unset = backend('ns', 'unset', { app: 'x', toString: '' });
    const set = backend('ns', 'set', { toString: 'yes' });
    const index = podIndex(pods, [unset, set]);
    expect(names(index.selectedBy(unset))).toEqual(['plain']);
    expect(names(index.selectedBy(set))).toEqual(['labelled']);
  });

  it('is built once for the same two lists, and again for others', () => {
    const pods = [pod('ns', 'a', { app: 'engine' })];
    const backends = [backend('ns', 'b', { app: 'engine' })];
    const first = podIndex(pods, backends);
    expect(podIndex(pods, backends)).toBe(first);
    expect(podIndex(pods, [...backends])).not.toBe(first);
    expect(podIndex([...pods], backends)).not.toBe(first);
  });

  it('equals matching every pod against every selector of its namespace, on random clusters', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rand = seededRandom(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
      const namespaces = ['a', 'b', 'c'];
      const keys = ['app', 'tier', 'zone', 'toString'];
      const values = ['', 'x', 'y'];
      const labels = () => {
        const out: Record<string, string> = {};
        for (const key of keys) if (rand() < 0.6) out[key] = pick(values);
        return out;
      };
      const pods = Array.from({ length: Math.floor(rand() * 40) }, (_, i) => pod(pick(namespaces), `p${i}`, labels()));
      const backends = Array.from({ length: Math.floor(rand() * 8) }, (_, i) =>
        backend(pick(namespaces), `b${i}`, rand() < 0.15 ? undefined : labels()),
      );
      const index = podIndex(pods, backends);
      for (const b of backends) {
        const want = pods.filter((p) => p.namespace === b.namespace && engineSelectorSelects(b.matchLabels, p.labels));
        expect(index.selectedBy(b), `seed ${seed}, backend ${b.name}`).toEqual(want);
      }
      for (const p of pods) {
        const want = backends.filter(
          (b) => b.namespace === p.namespace && hasSelector(b.matchLabels) && engineSelectorSelects(b.matchLabels, p.labels),
        );
        expect(index.selectorsOf(p), `seed ${seed}, pod ${p.name}`).toEqual(want);
      }
    }
  });
});
