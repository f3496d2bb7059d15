// `inferencecache explain` from the built bundle, as an operator without network access runs it: the
// explanation comes from inside the bundle (run from a folder with nothing else in it), and a wrong
// code is a usage error.
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { codeTable } from '../../src/checks/codes.ts';
import { runBundle } from '../support/bundle.ts';

const CB004 = codeTable().find((row) => row.code === 'CB004');

beforeAll(() => {
  requireBundle();
});

describe('explain, from the bundle', () => {
  it('explain CB004 prints the code, its fix and its docs link, and exits 0', async () => {
    const run = await runBundle(['explain', 'CB004']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^CB004 {2}WARN\n\nCheck: {4}CacheBackendHealth\n/);
    expect(run.stdout.replace(/\s+/g, ' ')).toContain(`Fix: ${CB004?.fix ?? '(CB004 has no fix)'}`);
    expect(run.stdout).toMatch(
      /\nDocs: {5}https:\/\/github\.com\/inference-cache\/inferencecache-doctor\/blob\/v[^/]+\/docs\/codes\.md#cb004\n$/,
    );
  });

  it('explain cb004 -o json --docs-base gives the same row as JSON, linked under the base', async () => {
    const run = await runBundle(['explain', 'cb004', '-o', 'json', '--docs-base', 'https://docs.example.com/codes.html']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      code: 'CB004',
      status: 'WARN',
      checks: ['CacheBackendHealth'],
      fix: CB004?.fix,
      docs: 'https://docs.example.com/codes.html#cb004',
    });
  });

  it.each([
    [['explain'], /^error: explain takes a finding code/],
    [['explain', 'CB999'], /^error: CB999 is not a code of this version of inferencecache \(\d+\.\d+\.\d+\); its CB codes are /],
    [['explain', 'CB04'], /^error: unknown code "CB04"; did you mean CB004\?/],
  ])('%j exits 3 with one line on stderr and nothing on stdout', async (args, why) => {
    const run = await runBundle(args);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(why);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
