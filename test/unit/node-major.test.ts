// The Node major the program needs is written once, in package.json's engines; the build hands it to
// src/main.ts. The bundle, run on a Node that says it is one major older (a preload makes
// process.versions say so before the bundle starts), refuses with one line that names that major and
// exits 3; on that major itself it runs.
import { describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { PACKAGE } from '../../dev/package.ts';
import { runBundle } from '../support/bundle.ts';

/** Runs the bundle's `--version` on a Node whose `process.versions.node` reads `version`. */
function versionOn(version: string) {
  const preload = `data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: ${JSON.stringify(version)} } });`;
  return runBundle(['--version'], { command: [process.execPath, '--import', preload, requireBundle()] });
}

describe(`the bundle and the Node major of package.json's engines (${PACKAGE.nodeMajor})`, () => {
  it('refuses the major below it, naming it, with exit 3 and nothing else', async () => {
    const older = `${PACKAGE.nodeMajor - 1}.99.0`;
    const run = await versionOn(older);
    expect(run).toMatchObject({
      code: 3,
      stdout: '',
      stderr: `inferencecache needs Node ${PACKAGE.nodeMajor} or newer (this is v${older})\n`,
    });
  });

  it('runs on the first release of that major', async () => {
    const run = await versionOn(`${PACKAGE.nodeMajor}.0.0`);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^inferencecache version /);
  });
});
