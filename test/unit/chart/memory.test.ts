// chart/README.md's Memory section says what the doctor's memory request and limit are and how to
// size the limit above 100,000 pods. The defaults it names are values.yaml's; every `helm` command it
// gives renders a pod with exactly the memory it sets; and the limit of each worked example is the
// default plus the per-1,000-pods figure the section states, for the pod count its comment names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHART_DIR, helmBinaries, helmTemplate, skipReason } from '../../support/helm.ts';
import type { PodObject } from './pod-facts.ts';

const readme = readFileSync(join(CHART_DIR, 'README.md'), 'utf8');
const values = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as {
  resources: { requests: { memory: string }; limits: { memory: string } };
};

/** The text of the Memory section, up to the next section. */
const section = /^## Memory\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';

/** A worked example: the pod count of its comment and the memory its `--set` flags give. */
interface Example {
  readonly pods: number;
  readonly requests?: string;
  readonly limits?: string;
}

/** The examples of the section's code blocks: a `# N pods` comment, then a command with `--set`s. */
function examples(): Example[] {
  const found: Example[] = [];
  for (const block of section.matchAll(/```bash\n([\s\S]*?)```/g)) {
    const text = (block[1] ?? '').replace(/\\\n/g, ' ');
    const pods = /^# ([\d,]+) pods/m.exec(text)?.[1];
    const set = (kind: string) => new RegExp(`--set resources\\.${kind}\\.memory=(\\S+)`).exec(text)?.[1];
    const requests = set('requests');
    const limits = set('limits');
    found.push({
      pods: Number((pods ?? 'NaN').replaceAll(',', '')),
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

describe('chart/README.md, Memory', () => {
  it('names the request and the limit of values.yaml', () => {
    expect(/The request \(`(\d+Mi)`\)/.exec(section)?.[1]).toBe(values.resources.requests.memory);
    expect(/the limit \(`(\d+Mi)`\)/.exec(section)?.[1]).toBe(values.resources.limits.memory);
  });

  it('gives worked examples whose limit is the default plus the stated MiB per 1,000 pods above 100,000', () => {
    const perThousand = Number(/raise the limit by (\d+)Mi per 1,000 pods above 100,000/.exec(section)?.[1]);
    expect(perThousand).toBeGreaterThan(0);
    const worked = examples();
    expect(worked.length).toBeGreaterThan(0);
    for (const example of worked) {
      expect(example.pods).toBeGreaterThan(100_000);
      expect(mebibytes(example.limits ?? '')).toBe(mebibytes(values.resources.limits.memory) + ((example.pods - 100_000) / 1_000) * perThousand);
    }
  });
});

for (const helm of helmBinaries()) {
  const skip = skipReason(helm);
  describe.skipIf(skip !== '')(`the Memory section's commands rendered by ${helm.name}${skip === '' ? '' : ` (skipped: ${skip})`}`, () => {
    it.each(examples())('$pods pods: the pod gets the memory the command sets', (example) => {
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
