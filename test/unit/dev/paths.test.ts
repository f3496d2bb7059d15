// The cache root is computed twice, once per language: dev/paths.ts for the TypeScript tools and
// hack/lib.sh for the shell scripts that build into it. The two must name the same folder for every
// setting of the variables, an empty one included.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, cacheRoot } from '../../../dev/paths.ts';
import { PACKAGE, minimumNodeMajor } from '../../../dev/package.ts';

const settings: { name: string; env: Record<string, string> }[] = [
  { name: 'neither variable', env: {} },
  { name: 'INFERENCECACHE_DOCTOR_CACHE_DIR', env: { INFERENCECACHE_DOCTOR_CACHE_DIR: '/tmp/icd-cache' } },
  { name: 'an empty INFERENCECACHE_DOCTOR_CACHE_DIR', env: { INFERENCECACHE_DOCTOR_CACHE_DIR: '' } },
  { name: 'XDG_CACHE_HOME', env: { XDG_CACHE_HOME: '/tmp/xdg' } },
  { name: 'an empty XDG_CACHE_HOME', env: { XDG_CACHE_HOME: '' } },
  { name: 'both', env: { INFERENCECACHE_DOCTOR_CACHE_DIR: '/tmp/icd-cache', XDG_CACHE_HOME: '/tmp/xdg' } },
];

describe('cacheRoot', () => {
  it.each(settings)('names the folder hack/lib.sh names with $name', ({ env }) => {
    const full = { PATH: process.env['PATH'] ?? '', HOME: '/home/someone', ...env };
    const shell = execFileSync('bash', ['-c', 'source hack/lib.sh && printf %s "$CP_CACHE_DIR"'], {
      cwd: PROJECT_ROOT,
      env: full,
      encoding: 'utf8',
    });
    expect(cacheRoot(full)).toBe(shell);
  });
});

describe('PACKAGE', () => {
  it('is package.json', async () => {
    const { default: pkg } = (await import(join(PROJECT_ROOT, 'package.json'), { with: { type: 'json' } })) as {
      default: { version: string; engines: { node: string } };
    };
    expect(PACKAGE.version).toBe(pkg.version);
    expect(String(PACKAGE.nodeMajor)).toBe(/\d+/.exec(pkg.engines.node)?.[0]);
  });
  it.each([
    ['>=24', 24],
    ['^24.1.0', 24],
    ['>= 26', 26],
  ])('reads the major of %s', (range, major) => expect(minimumNodeMajor(range)).toBe(major));
  it('refuses a range without a number', () => expect(() => minimumNodeMajor('latest')).toThrow(/names no Node major/));
});
