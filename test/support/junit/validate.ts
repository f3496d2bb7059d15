// Validates JUnit XML against the schema the tests keep (junit.xsd), with xmllint, a real validator.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The schema every `-o junit` output must satisfy. */
export const JUNIT_XSD = join(import.meta.dirname, 'junit.xsd');

/** Why xmllint cannot run here ('' when it can); CI installs it (.ci/run), so there it must. */
export function xmllintMissing(): string {
  const probe = spawnSync('xmllint', ['--version'], { encoding: 'utf8' });
  if (probe.error === undefined) return '';
  if (process.env['CI'] === 'true') throw new Error(`xmllint must run under CI (apt-get install libxml2-utils): ${probe.error.message}`);
  return 'xmllint is not installed (apt-get install libxml2-utils)';
}

/** xmllint's verdict on `xml`: exit code 0 and `validates` when it is well-formed and valid. */
export function validateJunit(xml: string): { code: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'icd-junit-'));
  try {
    const file = join(dir, 'report.xml');
    writeFileSync(file, xml);
    const run = spawnSync('xmllint', ['--noout', '--nonet', '--schema', JUNIT_XSD, file], { encoding: 'utf8' });
    return { code: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
