// What a finding costs the doctor's heap, measured: `npm run bench:findings`.
//
// The scale bench (`npm run bench:scale`) measures what a kept engine pod and a kept Event cost in peak
// RSS, by the difference between shapes; a kept engine pod always comes with its one finding there.
// This measures the finding alone, in this process: 100,000 engine pods of the scale scenario's
// names, each selected by one of 5,000 CacheBackends in 50 namespaces, judged by the real
// EnginePodInjectionAudit (the emitter as a run makes it, messages interned and flattened), the heap
// collected before and after, with the pods held all along. Run under `node --expose-gc`.
import { runCheck, type CheckInput } from '../../src/checks/run.ts';
import { enginePodInjectionAudit } from '../../src/checks/engine-pod-injection.ts';
import type { ClusterState } from '../../src/cluster/state/state.ts';
import type { CacheBackend } from '../../src/cluster/kinds/cache-backend.ts';
import type { Pod } from '../../src/cluster/kinds/pod.ts';
import type { Finding } from '../../src/report/finding.ts';

const PODS = 100_000;
const BACKENDS = 5_000;
const NAMESPACES = 50;

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run under node --expose-gc (npm run bench:findings does)');

/** The live heap after full collections. */
function liveHeap(): number {
  for (let i = 0; i < 3; i++) collect?.();
  return process.memoryUsage().heapUsed;
}

const ns = (i: number) => `scale-${String(i % NAMESPACES).padStart(2, '0')}`;
const backends: CacheBackend[] = Array.from({ length: BACKENDS }, (_, i) => ({
  namespace: ns(i),
  name: `be-${i}`,
  uid: `00000000-0000-4000-8000-0b${String(i).padStart(10, '0')}`,
  conditions: [],
  matchLabels: { 'inferencecache.io/cache-domain': `engine-${i}` },
}));

/** The engine pods; `injected` says which carry the annotation pair that checks out. */
function pods(injected: (i: number) => boolean): Pod[] {
  return Array.from({ length: PODS }, (_, i) => {
    const b = backends[i % BACKENDS] as CacheBackend;
    return {
      namespace: b.namespace,
      name: `engine-${i}`,
      uid: `00000000-0000-4000-8000-0c${String(i).padStart(10, '0')}`,
      labels: { 'inferencecache.io/cache-domain': `engine-${i % BACKENDS}` },
      annotations: injected(i)
        ? { 'inferencecache.io/injected-by': `${b.namespace}/${b.name}`, 'inferencecache.io/injected-by-uid': b.uid }
        : {},
    };
  });
}

/** The heap bytes each finding of a judged run adds, and the findings' codes. */
function perFinding(selected: readonly Pod[]): { bytes: number; codes: string } {
  const state = {
    cacheBackends: { ok: true, items: backends },
    selectedPods: { ok: true, items: selected },
    injectionEvents: { ok: true, items: [] },
  } as unknown as ClusterState;
  const input: CheckInput = { state, probes: {}, now: new Date(), namespace: '' };
  const before = liveHeap();
  const findings: Finding[] = runCheck(enginePodInjectionAudit, input);
  const after = liveHeap();
  const codes = [...new Set(findings.map((f) => f.code))].join(', ');
  if (findings.length !== PODS) throw new Error(`${findings.length} findings for ${PODS} pods`);
  return { bytes: (after - before) / findings.length, codes };
}

const lines = [
  `${PODS.toLocaleString('en')} engine pods, ${BACKENDS.toLocaleString('en')} CacheBackends, ${NAMESPACES} namespaces; node ${process.version}`,
];
for (const [label, injected] of [
  ['injected by annotation', () => true],
  ['not injected', () => false],
] as const) {
  const selected = pods(injected);
  const { bytes, codes } = perFinding(selected);
  lines.push(`${label} (${codes}): ${bytes.toFixed(0)} bytes of heap a finding`);
}
process.stdout.write(`${lines.join('\n')}\n`);
