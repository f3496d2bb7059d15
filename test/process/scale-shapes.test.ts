// Every shape the scale bench can build is judged as `expectedCounts` says: the scenario's objects at a
// small size, written to a file as `inferencecache dump` would, judged by the bundle (`doctor -f`), give
// exactly the findings per code the shape implies. The bench checks the same against a control plane
// at its sizes, and test/integration/scale.test.ts at a tenth and at a fiftieth of the envelope.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BENCH_SHAPE,
  ENVELOPE,
  INFERENCE_SHAPE,
  expectedCounts,
  scaled,
  scenarioObjects,
  type ScaleShape,
  type ScaleSize,
} from '../../dev/cluster/scale-scenario.ts';
import { runBundle } from '../support/bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'icd-scale-shapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cases: [string, ScaleSize, ScaleShape][] = [
  ['the bench shape', scaled(0.02), BENCH_SHAPE],
  ['the inference shape', scaled(0.02), INFERENCE_SHAPE],
  ['no engine pods', scaled(0.02), { enginePercent: 0, injection: BENCH_SHAPE.injection }],
  ['only engine pods, injected by Events', scaled(0.02), { enginePercent: 100, injection: { annotation: 0, event: 1, none: 0 } }],
  ['70% engine pods, none injected', scaled(0.02), { enginePercent: 70, injection: { annotation: 0, event: 0, none: 1 } }],
  ['a hundredth of the envelope, its Nodes included', scaled(0.01, ENVELOPE), INFERENCE_SHAPE],
];

describe('the scale scenario judged from files', () => {
  it.each(cases)('%s: the findings per code the shape implies', async (name, size, shape) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...scenarioObjects(size, shape)] }));
    const run = await runBundle(['doctor', '-f', file, '--covers', 'all', '-o', 'json'], { timeoutMs: 120_000 });
    expect(run.stderr).toBe('');
    const got: Record<string, number> = {};
    for (const f of (JSON.parse(run.stdout) as { findings: { code: string }[] }).findings) got[f.code] = (got[f.code] ?? 0) + 1;
    expect(got).toEqual(Object.fromEntries(Object.entries(expectedCounts(size, shape)).filter(([, n]) => n > 0)));
  });
});
