/**
 * The names and contents of what `npm run release` attaches to a release (scripts/release.ts), shared
 * with the tests that install from them.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_DIR } from './bundle.ts';
import type { ExecutablePlatform } from './node-runtime.ts';
import { PROJECT_ROOT } from './paths.ts';

/** Where the release's files are written. */
export const RELEASE_DIR = join(BUNDLE_DIR, 'release');

/** The krew manifest's template and the template of one of its platforms. */
const KREW_TEMPLATE = join(PROJECT_ROOT, 'release/krew/inferencecache.yaml');
const KREW_PLATFORM_TEMPLATE = join(PROJECT_ROOT, 'release/krew/platform.yaml');

/** The archive of `platform`'s executable: `kubectl-inferencecache_v0.1.0_linux_amd64.tar.gz`. */
export function archiveName(version: string, platform: ExecutablePlatform): string {
  return `kubectl-inferencecache_v${version}_${platform.replace('-', '_')}.tar.gz`;
}

/** Replaces each `{{NAME}}` with its value; a name without one, or a value never used, is an error. */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>, what: string): string {
  const used = new Set<string>();
  const filled = template.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${what}: nothing to fill {{${name}}} with`);
    used.add(name);
    return value;
  });
  const unused = Object.keys(values).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`${what}: no {{${unused.join('}}, {{')}}} in the template`);
  return filled;
}

/** A template without the comment lines it opens with, which speak to the maintainers, not to krew's users. */
function withoutLeadingComments(template: string): string {
  return template.replace(/^(?:#[^\n]*\n)+/, '');
}

/** One platform's archive in the manifest. */
export interface KrewPlatform {
  readonly platform: ExecutablePlatform;
  readonly uri: string;
  readonly sha256: string;
}

/** The krew manifest for `version`, its platforms in the order given. */
export function fillKrewManifest(release: { version: string; homepage: string; platforms: readonly KrewPlatform[] }): string {
  const platformTemplate = readFileSync(KREW_PLATFORM_TEMPLATE, 'utf8');
  const platforms = release.platforms.map(({ platform, uri, sha256 }) => {
    const [os = '', arch = ''] = platform.split('-');
    return fillTemplate(platformTemplate, { OS: os, ARCH: arch, URI: uri, SHA256: sha256 }, KREW_PLATFORM_TEMPLATE);
  });
  return fillTemplate(
    withoutLeadingComments(readFileSync(KREW_TEMPLATE, 'utf8')),
    { VERSION: release.version, HOMEPAGE: release.homepage, PLATFORMS: platforms.join('').trimEnd() },
    KREW_TEMPLATE,
  );
}
