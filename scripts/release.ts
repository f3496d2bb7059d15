// `npm run release`: what a release attaches besides the image and the chart, in dist/release/:
//   kubectl-inferencecache_v<version>_linux_<arch>.tar.gz  the executable as `kubectl-inferencecache`,
//                                                          with LICENSE and Node's license (LICENSE-node)
//   SHA256SUMS                                             each archive's sha256, as sha256sum writes it
//   inferencecache.yaml                                    the krew manifest: release/krew/ filled in
// The archives are reproducible: names sorted, owner root, every mtime the commit's time.
//
//   node scripts/release.ts [--download-base URL] [--platform linux-amd64,linux-arm64] [--out DIR]
// --download-base is where the archives will be downloaded from (the release's download folder);
// the default is the project's GitHub release of this version. --out writes elsewhere than
// dist/release (the tests do).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureExecutables, executablePath } from '../dev/executable.ts';
import { EXECUTABLE_PLATFORMS, parsePlatforms, type ExecutablePlatform } from '../dev/node-runtime.ts';
import { PACKAGE } from '../dev/package.ts';
import { PROJECT_ROOT } from '../dev/paths.ts';
import { archiveName, fillKrewManifest, RELEASE_DIR } from '../dev/release-files.ts';
import { PROJECT_URL } from '../src/version.ts';

const { values } = parseArgs({
  options: {
    'download-base': { type: 'string', default: `${PROJECT_URL}/releases/download/v${PACKAGE.version}` },
    platform: { type: 'string', default: EXECUTABLE_PLATFORMS.join(',') },
    out: { type: 'string', default: RELEASE_DIR },
  },
});
const out = values.out ?? RELEASE_DIR;
const downloadBase = (values['download-base'] ?? '').replace(/\/+$/, '');
if (!/^https?:\/\/[^\s/]+/.test(downloadBase)) throw new Error(`--download-base ${JSON.stringify(downloadBase)}: want an http(s) URL`);
const platforms = parsePlatforms(values.platform ?? '');

ensureExecutables(platforms);

/** Every file's time in the archives: the commit's, so that a rebuild of the same commit is byte for byte the same. */
const epoch = (() => {
  try {
    return execFileSync('git', ['log', '-1', '--format=%ct'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return process.env['SOURCE_DATE_EPOCH'] ?? '0';
  }
})();

mkdirSync(out, { recursive: true });
const sums: string[] = [];
const entries: { platform: ExecutablePlatform; uri: string; sha256: string }[] = [];
for (const platform of platforms) {
  const stage = mkdtempSync(join(tmpdir(), 'icd-release-'));
  try {
    copyFileSync(executablePath(platform), join(stage, 'kubectl-inferencecache'));
    copyFileSync(join(PROJECT_ROOT, 'LICENSE'), join(stage, 'LICENSE'));
    copyFileSync(`${executablePath(platform)}.node-license`, join(stage, 'LICENSE-node'));
    const name = archiveName(PACKAGE.version, platform);
    const tar = spawnSync(
      'tar',
      [
        '--sort=name',
        '--owner=0',
        '--group=0',
        '--numeric-owner',
        `--mtime=@${epoch}`,
        '--mode=u+rwX,go+rX,go-w',
        '-C',
        stage,
        '-cf',
        '-',
        'LICENSE',
        'LICENSE-node',
        'kubectl-inferencecache',
      ],
      { maxBuffer: 1 << 30 },
    );
    if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr.toString()}`);
    // gzip -n: no name or time in the gzip header either. The default level: -9 saves 0.6% of 41 MB
    // and takes 3.5 times as long.
    const gz = spawnSync('gzip', ['-n'], { input: tar.stdout, maxBuffer: 1 << 30 });
    if (gz.status !== 0) throw new Error(`gzip failed: ${gz.stderr.toString()}`);
    writeFileSync(join(out, name), gz.stdout);
    const sha256 = createHash('sha256').update(gz.stdout).digest('hex');
    sums.push(`${sha256}  ${name}`);
    entries.push({ platform, uri: `${downloadBase}/${name}`, sha256 });
    console.log(`${join(out, name)}: ${(gz.stdout.length / 1e6).toFixed(1)} MB, sha256 ${sha256}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
writeFileSync(join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
writeFileSync(join(out, 'inferencecache.yaml'), fillKrewManifest({ version: PACKAGE.version, homepage: PROJECT_URL, platforms: entries }));
console.log(`${join(out, 'inferencecache.yaml')}: the krew manifest, for ${downloadBase}/`);
