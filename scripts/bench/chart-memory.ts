// The chart's default memory limit, read from chart/values.yaml: the envelope's bar in `npm run bench:scale`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../dev/paths.ts';

/** `resources.limits.memory` of chart/values.yaml in MiB (it is written in Mi). */
export function chartMemoryLimitMiB(): number {
  const values = parse(readFileSync(join(PROJECT_ROOT, 'chart/values.yaml'), 'utf8')) as { resources: { limits: { memory: string } } };
  const m = /^(\d+)Mi$/.exec(values.resources.limits.memory);
  if (m === null) throw new Error(`chart/values.yaml: resources.limits.memory ${values.resources.limits.memory} is not written in Mi`);
  return Number(m[1]);
}
