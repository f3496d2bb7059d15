// The Memory section of docs/chart.md (where chart/README.md's Memory section leads) says what the
// doctor's memory request and limit are and how to size the limit above the Kubernetes envelope. The
// defaults it names are values.yaml's; the envelope it starts from is the one its table shows inside the
// default limit; its per-1,000-engine-pods figure is derived from the growth table of docs/performance.md
// (twice the measured cost of an engine pod with its finding and its injection Event, rounded up to a
// whole Mi); every `helm` command it gives renders a pod with exactly the memory it sets; and the limit
// of each worked example follows the rule for the engine pods its comment names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { CHART_DIR, helmBinaries, helmTemplate, skipReason } from '../../support/helm.ts';
import type { PodObject } from './pod-facts.ts';

const chartDoc = readFileSync(join(PROJECT_ROOT, 'docs/chart.md'), 'utf8');
const performance = readFileSync(join(PROJECT_ROOT, 'docs/performance.md'), 'utf8');
const values = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as {
  resources: { requests: { memory: string }; limits: { memory: string } };
};

/** The text of the Memory section, up to the next section. */
const section = /^## Memory\n([\s\S]*?)(?=^## )/m.exec(chartDoc)?.[1] ?? '';

/** `1,234` as 1234. */
const count = (text: string | undefined) => Number((text ?? 'NaN').replaceAll(',', ''));

/** The rule: the limit grows by `perThousand` Mi for every 1,000 engine pods above `above`. */
const rule = /raise the limit by (\d+)Mi per 1,000 engine pods above ([\d,]+)/.exec(section);
const perThousand = Number(rule?.[1]);
const above = count(rule?.[2]);

/** A worked example: the engine pods of its comment and the memory its `--set` flags give. */
interface Example {
  readonly enginePods: number;
  readonly requests?: string;
  readonly limits?: string;
}

/** The examples of the section's code blocks: a `# N engine pods` comment, then a command with `--set`s. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const block of section.matchAll(/```bash\n([\s\S]*?)```/g)) {
    const text = (block[1] ?? '').replace(/\\\n/g, ' ');
    const set = (kind: string) => new RegExp(`--set resources\\.${kind}\\.memory=(\\S+)`).exec(text)?.[1];
    const requests = set('requests');
    const limits = set('limits');
    found.push({
      enginePods: count(/^# ([\d,]+) engine pods/m.exec(text)?.[1]),
      ...(requests === undefined ? {} : { requests }),
      ...(limits === undefined ? {} : { limits }),
    });
  }
  return found;
}

const mebibytes = (quantity: string) => {
  const m = /^(\d+)Mi$/.exec(quantity);
  if (m === null) throw new Error(`${quantity}: not a quantity in Mi`);
  return Number(m[1]);
};

/** The bytes a row of docs/performance.md's growth table gives per item. */
function perItem(row: string): number {
  const line = performance.split('\n').find((l) => l.startsWith(`| ${row} |`));
  const bytes = /\| ([\d,]+) bytes \|\s*$/.exec(line ?? '')?.[1];
  return count(bytes);
}

describe('docs/chart.md, Memory', () => {
  it('names the request and the limit of values.yaml', () => {
    expect(/The request \(`(\d+Mi)`\)/.exec(section)?.[1]).toBe(values.resources.requests.memory);
    expect(/the limit \(`(\d+Mi)`\)/.exec(section)?.[1]).toBe(values.resources.limits.memory);
  });

  it('starts the rule at the envelope, whose measured peak its table shows inside the default limit', () => {
    const row = section.split('\n').find((l) => l.startsWith('| the Kubernetes envelope |')) ?? '';
    const cells = row.split('|').map((c) => c.trim());
    expect(count(/\(([\d,]+)\)/.exec(cells[2] ?? '')?.[1])).toBe(above);
    const peaks = [...(cells.at(-2) ?? '').matchAll(/([\d.]+) MiB/g)].map((m) => Number(m[1]));
    expect(peaks.length).toBeGreaterThan(0);
    for (const peak of peaks) expect(peak).toBeLessThan(mebibytes(values.resources.limits.memory));
  });

  it("derives the per-1,000-engine-pods figure from docs/performance.md's growth table: twice the measured cost, rounded up", () => {
    const engine = perItem('an engine pod, with its finding');
    const event = perItem('an InjectedByCacheBackend Event');
    expect(engine).toBeGreaterThan(0);
    expect(event).toBeGreaterThan(0);
    expect(perThousand).toBe(Math.ceil((2 * (engine + event) * 1_000) / 2 ** 20));
  });

  it('gives worked examples whose limit is the default plus the stated Mi per 1,000 engine pods above the envelope', () => {
    expect(perThousand).toBeGreaterThan(0);
    const worked = examples();
    expect(worked.length).toBeGreaterThan(0);
    for (const example of worked) {
      expect(example.enginePods).toBeGreaterThan(above);
      expect(mebibytes(example.limits ?? '')).toBe(
        mebibytes(values.resources.limits.memory) + Math.ceil(((example.enginePods - above) / 1_000) * perThousand),
      );
    }
  });
});

for (const helm of helmBinaries()) {
  const skip = skipReason(helm);
  describe.skipIf(skip !== '')(`the Memory section's commands rendered by ${helm.name}${skip === '' ? '' : ` (skipped: ${skip})`}`, () => {
    it.each(examples())('$enginePods engine pods: the pod gets the memory the command sets', (example) => {
      const resources = {
        ...(example.requests === undefined ? {} : { requests: { memory: example.requests } }),
        ...(example.limits === undefined ? {} : { limits: { memory: example.limits } }),
      };
      const pods = helmTemplate(helm, { namespace: 'default', values: { resources } }).filter((o) => o.kind === 'Pod') as PodObject[];
      expect(pods.length).toBeGreaterThan(0);
      for (const pod of pods) {
        const got = pod.spec.containers[0]?.resources as { requests?: { memory?: string }; limits?: { memory?: string } } | undefined;
        expect(got?.requests?.memory).toBe(example.requests ?? values.resources.requests.memory);
        expect(got?.limits?.memory).toBe(example.limits ?? values.resources.limits.memory);
      }
    });
  });
}
