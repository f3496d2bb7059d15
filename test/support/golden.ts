// A golden file compared, or rewritten with UPDATE_GOLDEN=1 after a deliberate change (never under CI): the one
// way the tests hold output to a file under test/golden/.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { PROJECT_ROOT } from '../../dev/paths.ts';

/** Whether this run rewrites the goldens instead of comparing with them. */
export const UPDATE_GOLDEN = process.env['UPDATE_GOLDEN'] === '1';

/** Expects `got` to equal the golden `file` (a path under the project); with UPDATE_GOLDEN=1 writes it instead. */
export function expectGolden(file: string, got: string, testFile: string): void {
  if (UPDATE_GOLDEN) {
    if (process.env['CI'] === 'true') throw new Error('UPDATE_GOLDEN=1 is refused under CI=true');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, got);
    return;
  }
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing; create it with UPDATE_GOLDEN=1 npx vitest run ${path.relative(PROJECT_ROOT, testFile)}`);
  }
  expect(got).toBe(fs.readFileSync(file, 'utf8'));
}
