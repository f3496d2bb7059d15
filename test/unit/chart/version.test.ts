// The chart's appVersion is the image tag it runs by default, and `npm run image` tags the image with
// package.json's version: the two must be the same, or the chart's default pulls an image no build made.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { PACKAGE } from '../../../dev/package.ts';
import { PROJECT_ROOT } from '../../../dev/paths.ts';

it("the chart's appVersion is package.json's version", () => {
  const chart = parse(readFileSync(join(PROJECT_ROOT, 'chart/Chart.yaml'), 'utf8')) as { appVersion: unknown };
  expect(chart.appVersion).toBe(PACKAGE.version);
});
