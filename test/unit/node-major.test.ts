// The Node major the program needs is stated twice: in package.json's engines (which the bundle's
// loader checks before anything loads) and in src/main.ts (for runs from source). They must agree.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../dev/paths.ts';

it('src/main.ts and package.json engines name the same Node major', () => {
  const engines = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const main = readFileSync(join(PROJECT_ROOT, 'src/main.ts'), 'utf8');
  const stated = /const MINIMUM_NODE_MAJOR = (\d+);/.exec(main)?.[1];
  expect(stated).toBeDefined();
  expect(/\d+/.exec(engines)?.[0]).toBe(stated);
});
