// The offline round trip on the real control plane: a live `doctor --config-only` and `dump` then
// `doctor -f` must give the same findings, and a dump must hold no credential and no managedFields.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runBundle } from './bundle.ts';
import { leakIn } from './leak-forms.ts';
import type { JsonReport } from './json-report.ts';

/** What a suppressed finding is compared by: the finding, and the rule that set it apart. */
function suppressedOf(report: JsonReport) {
  return (report.suppressed ?? []).map((f) => ({ code: f.code, resource: f.resource, message: f.message, by: f.suppressedBy }));
}

/** The bearer tokens a kubeconfig file holds (`token: …` lines): no dump may contain them. */
function tokensIn(kubeconfig: string): string[] {
  return [...readFileSync(kubeconfig, 'utf8').matchAll(/^\s*token:\s*(\S+)\s*$/gm)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
}

/**
 * What a finding is compared by. The one age a message states (a KV event's, to the second) is left
 * out: the live run and the dump read the clock a second or so apart.
 */
function compared(report: JsonReport) {
  return report.findings.map((f) => ({
    code: f.code,
    status: f.status,
    check: f.check,
    resource: f.resource,
    message: f.message.replace(/ is \S+ old, beyond /, ' is <age> old, beyond '),
  }));
}

/**
 * Runs the round trip as the identity of `kubeconfig`, in YAML and in JSON, with `scope` (`-n NS` or
 * nothing), and returns the findings. `secrets` are texts no dump may contain; with `secretsDenied`, the
 * identity may not get Secrets, which the dump must name as failed reads (exit 1).
 */
export async function expectRoundTrip(
  kubeconfig: string,
  scope: readonly string[],
  secrets: readonly string[] = [],
  opts: { readonly secretsDenied?: boolean } = {},
): Promise<JsonReport> {
  const env = { env: { PATH: process.env['PATH'] ?? '' } };
  const live = await runBundle(['doctor', '--kubeconfig', kubeconfig, '--config-only', '-o', 'json', ...scope], env);
  const liveReport = JSON.parse(live.stdout) as JsonReport;
  const dir = mkdtempSync(join(tmpdir(), 'icd-dump-'));
  try {
    for (const format of ['yaml', 'json']) {
      const dump = await runBundle(['dump', '--kubeconfig', kubeconfig, '-o', format, ...scope], env);
      if (opts.secretsDenied === true) {
        // Each pull secret it may not get is a failed read: named on stderr (and in the stream), exit 1.
        const lines = dump.stderr.split('\n').filter((line) => line !== '');
        expect(lines.length, `dump -o ${format}: the failed reads`).toBeGreaterThan(0);
        for (const line of lines) expect(line).toMatch(/^warning: a read failed, so its objects are missing: Secret \S+: 403 .*forbidden/);
        expect(dump.code).toBe(1);
      } else {
        expect(dump.stderr, `dump -o ${format}`).toBe('');
        expect(dump.code).toBe(0);
      }
      expect(dump.stdout).toMatch(
        format === 'yaml' ? /^# inferencecache dump taken \S+Z by inferencecache / : /^\{"\$comment":"inferencecache dump taken /,
      );
      expect(dump.stdout).not.toContain('managedFields');
      expect(leakIn(dump.stdout, [...secrets, ...tokensIn(kubeconfig)]), 'a credential in the dump').toBeUndefined();
      const file = join(dir, `dump.${format}`);
      writeFileSync(file, dump.stdout);
      const offline = await runBundle(['doctor', '-f', file, '-o', 'json', ...scope], env);
      expect(offline.stderr, `doctor -f dump.${format}`).toBe('');
      const offlineReport = JSON.parse(offline.stdout) as JsonReport;
      expect(compared(offlineReport), `doctor -f dump.${format} ${scope.join(' ')}`).toEqual(compared(liveReport));
      expect(suppressedOf(offlineReport)).toEqual(suppressedOf(liveReport));
      expect(offline.code).toBe(live.code);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return liveReport;
}
