// What `npm run build:exe` and `npm run release` are made of: the Node runtime's pin, the archive names,
// and the filling of the krew manifest, which refuses a placeholder it has no value for.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXECUTABLE_PLATFORMS, NODE_RUNTIME_VERSION, RUNTIMES, parsePlatforms } from '../../../dev/node-runtime.ts';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { archiveName, fillKrewManifest, fillTemplate } from '../../../dev/release-files.ts';

describe('the Node runtime of the executables', () => {
  it("is the `node` devDependency's version, the Node that writes the blob", () => {
    const installed = JSON.parse(readFileSync(join(PROJECT_ROOT, 'node_modules/node/package.json'), 'utf8')) as { version: string };
    const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string }>;
    };
    expect(NODE_RUNTIME_VERSION).toBe(installed.version);
    expect(NODE_RUNTIME_VERSION).toBe(lock.packages['node_modules/node']?.version);
  });

  it('is pinned by a sha512 integrity for every platform', () => {
    for (const platform of EXECUTABLE_PLATFORMS) expect(RUNTIMES[platform].integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
  });
});

describe('--platform of build:exe and release', () => {
  it('reads a list of platforms in its order', () => {
    expect(parsePlatforms('linux-arm64,linux-amd64')).toEqual(['linux-arm64', 'linux-amd64']);
  });

  it.each([
    ['an unknown platform', 'linux-amd64,darwin-arm64', /--platform darwin-arm64: executables are built for linux-amd64, linux-arm64/],
    ['no platform', ',', /names no platform/],
  ])('refuses %s', (_, list, message) => {
    expect(() => parsePlatforms(list)).toThrow(message);
  });
});

describe('the release files', () => {
  it('names each archive for krew and Go: kubectl-inferencecache_v<version>_<os>_<arch>.tar.gz', () => {
    expect(archiveName('1.2.3', 'linux-arm64')).toBe('kubectl-inferencecache_v1.2.3_linux_arm64.tar.gz');
  });

  it.each([
    ['a placeholder without a value', 'a {{X}} b', {}, /nothing to fill \{\{X\}\}/],
    ['a value without a placeholder', 'a b', { X: '1' }, /no \{\{X\}\} in the template/],
  ])('refuses %s', (_, template, values, message) => {
    expect(() => fillTemplate(template, values, 'test')).toThrow(message);
  });

  it('fills the krew manifest: one platform per archive, selected by os and arch, with its address and sha256', () => {
    const sha = 'a'.repeat(64);
    const manifest = parse(
      fillKrewManifest({
        version: '1.2.3',
        homepage: 'https://example.org/doctor',
        platforms: EXECUTABLE_PLATFORMS.map((platform) => ({ platform, uri: `https://example.org/${platform}.tar.gz`, sha256: sha })),
      }),
    ) as {
      metadata: { name: string };
      spec: { version: string; platforms: { selector: unknown; uri: string; sha256: string; bin: string }[] };
    };
    expect(manifest.metadata.name).toBe('inferencecache');
    expect(manifest.spec.version).toBe('v1.2.3');
    expect(manifest.spec.platforms.map((p) => [p.selector, p.uri, p.sha256, p.bin])).toEqual([
      [{ matchLabels: { os: 'linux', arch: 'amd64' } }, 'https://example.org/linux-amd64.tar.gz', sha, 'kubectl-inferencecache'],
      [{ matchLabels: { os: 'linux', arch: 'arm64' } }, 'https://example.org/linux-arm64.tar.gz', sha, 'kubectl-inferencecache'],
    ]);
  });
});
