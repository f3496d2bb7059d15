import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../../dev/process.ts';
import { requireBundle, BUNDLE } from '../../dev/bundle.ts';
import { runBundle, writeKubeconfig } from '../support/bundle.ts';
import type { Declaration } from '../../src/checks/check.ts';
import { CHECKS, activeDeclarations } from '../../src/checks/registry.ts';
import { READS } from '../../src/cluster/state/reads.ts';
import type { ReadName } from '../../src/cluster/state/state.ts';

/** Whether a check lists objects (an `items` read), so that a failed list ends it with API001. */
function listsObjects(check: Declaration): boolean {
  return Object.values(check.reads).includes('items');
}

/** The Kinds a check lists. */
function kindsListedBy(check: Declaration | undefined): string[] {
  return Object.entries(check?.reads ?? {}).flatMap(([read, mode]) => (mode === 'items' ? [READS[read as ReadName].kind] : []));
}

const ESC = '\u001b[';

let unreachable = '';
beforeAll(async () => {
  requireBundle();
  unreachable = writeKubeconfig(`https://127.0.0.1:${await closedPort()}`);
});

describe('could not run: exit 3, one line on stderr, nothing on stdout', () => {
  const cases: { name: string; args: () => string[]; stderr: RegExp }[] = [
    { name: 'unknown output format', args: () => ['doctor', '--output', 'bogus'], stderr: /invalid output format "bogus"/ },
    { name: 'output format is case-sensitive', args: () => ['doctor', '-o', 'JSON'], stderr: /invalid output format "JSON"/ },
    { name: 'unknown flag', args: () => ['doctor', '--frobnicate'], stderr: /--frobnicate/ },
    { name: 'positional argument', args: () => ['doctor', 'extra'], stderr: /no arguments.*"extra"/ },
    { name: 'bare number as timeout', args: () => ['doctor', '--timeout', '30'], stderr: /invalid --timeout "30"/ },
    { name: 'zero timeout', args: () => ['doctor', '--timeout', '0s'], stderr: /invalid --timeout "0s": it must be longer than 0/ },
    { name: 'negative timeout', args: () => ['doctor', '--timeout=-1s'], stderr: /invalid --timeout "-1s": it must be longer than 0/ },
    {
      name: 'timeout beyond what a timer holds',
      args: () => ['doctor', '--timeout', '600h'],
      stderr: /invalid --timeout "600h": the longest is 596h31m23.647s/,
    },
    { name: 'absurd timeout', args: () => ['doctor', '--timeout', '9999999h'], stderr: /invalid --timeout "9999999h": the longest is/ },
    { name: 'namespace that would climb the URL', args: () => ['doctor', '-n', '..'], stderr: /invalid --namespace "\.\."/ },
    { name: 'namespace with a slash', args: () => ['doctor', '-n', 'a/pods'], stderr: /invalid --namespace "a\/pods"/ },
    { name: 'namespace in upper case', args: () => ['doctor', '-n', 'Prod'], stderr: /invalid --namespace "Prod"/ },
    {
      name: 'server endpoint with a scheme',
      args: () => ['doctor', '--server-endpoint', 'http://x'],
      stderr: /invalid --server-endpoint "http:\/\/x".*scheme/,
    },
    {
      name: 'server endpoint with a malformed host',
      args: () => ['doctor', '--server-endpoint', 'bad host:9090'],
      stderr: /invalid --server-endpoint/,
    },
    { name: 'server endpoint with a bad port', args: () => ['doctor', '--server-endpoint', 'host:99999'], stderr: /port "99999"/ },
    {
      name: 'unreadable kubeconfig',
      args: () => ['doctor', '--kubeconfig', '/nonexistent/kubeconfig'],
      stderr: /cannot load kubeconfig "\/nonexistent\/kubeconfig" \(from --kubeconfig\): ENOENT/,
    },
    {
      name: 'unknown context',
      args: () => ['doctor', '--kubeconfig', unreachable, '--context', 'nosuch'],
      stderr: /context "nosuch" is not in the kubeconfig/,
    },
    { name: 'unknown command', args: () => ['doktor'], stderr: /unknown command "doktor"/ },
  ];
  it.each(cases)('$name', async ({ args, stderr }) => {
    const run = await runBundle(args());
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: /);
    expect(run.stderr).toMatch(stderr);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('a kubeconfig that is not YAML is refused the same way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'icd-bad-'));
    const file = join(dir, 'config');
    writeFileSync(file, 'clusters: [unterminated\n');
    const run = await runBundle(['doctor', '--kubeconfig', file]);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: cannot load kubeconfig/);
  });
});

describe('an API server that refuses connections', () => {
  it('--config-only -o json prints a valid report of API001 findings and exits 2 within the timeout', async () => {
    const run = await runBundle(['doctor', '--kubeconfig', unreachable, '--config-only', '-o', 'json', '--timeout', '5s']);
    expect(run.code).toBe(2);
    expect(run.elapsedMs).toBeLessThan(6_000);
    const report = JSON.parse(run.stdout) as {
      summary: Record<string, number>;
      findings: { code: string; check: string; resource: string }[];
    };
    // One API001 from each check that lists objects, in run order, naming a Kind it lists.
    const listing = activeDeclarations({ configOnly: true }, CHECKS).filter(listsObjects);
    expect(report.findings.map((f) => [f.code, f.check])).toEqual(listing.map((check) => ['API001', check.name]));
    report.findings.forEach((f, i) => expect(kindsListedBy(listing[i])).toContain(f.resource));
    expect(report.findings.slice(0, 3).map((f) => f.resource)).toEqual(['CacheBackend', 'CacheBackend', 'Event']);
    expect(report.summary).toEqual({ ok: 0, info: 0, warn: 0, fail: listing.length, exitCode: 2 });
    expect(listing.length).toBeGreaterThanOrEqual(7);
    expect(run.stderr).toBe('');
  });

  it('without --config-only, discovery fails first: one SV001 without resource, and a warning on stderr', async () => {
    const run = await runBundle(['doctor', '--kubeconfig', unreachable, '-o', 'json', '--timeout', '5s']);
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as { findings: { code: string; resource?: string }[] };
    expect(report.findings[0]).toMatchObject({ code: 'SV001' });
    expect(report.findings[0]).not.toHaveProperty('resource');
    expect(report.findings.filter((f) => f.code === 'API001')).toHaveLength(CHECKS.filter(listsObjects).length);
    expect(report.findings.some((f) => /^(SN|PL|PB)/.test(f.code))).toBe(false);
    expect(run.stderr).toMatch(/^warning: .*server probes are skipped/);
  });
});

describe('version and help', () => {
  it('--version prints the version and the commit', async () => {
    const run = await runBundle(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^inferencecache version \d+\.\d+\.\d+ \(commit [0-9a-f]+|unknown\)\n$/);
  });
  it('doctor --help lists every flag and exits 0', async () => {
    const run = await runBundle(['doctor', '--help']);
    expect(run.code).toBe(0);
    for (const flag of [
      '--kubeconfig',
      '--context',
      '--namespace',
      '--server-endpoint',
      '--snapshot-token-file',
      '--output',
      '--no-color',
      '--config-only',
      '--timeout',
    ]) {
      expect(run.stdout).toContain(flag);
    }
  });
  it('codes -o json lists the code table', async () => {
    const run = await runBundle(['codes', '-o', 'json']);
    expect(run.code).toBe(0);
    const codes = JSON.parse(run.stdout) as { code: string }[];
    expect(codes.map((c) => c.code)).toContain('EP003');
  });
});

describe('colour on a terminal', () => {
  /** Runs the bundle under a pseudo-terminal (util-linux `script`), so stdout is a TTY. */
  const onTerminal = (env: NodeJS.ProcessEnv, extra: string[] = []) =>
    runBundle([], {
      command: [
        'script',
        '-qec',
        [process.execPath, BUNDLE, 'doctor', '--kubeconfig', unreachable, '--config-only', '--timeout', '3s', ...extra].join(' '),
        '/dev/null',
      ],
      env: { PATH: process.env['PATH'] ?? '', TERM: 'xterm', ...env },
    });

  it('is on by default', async () => {
    const run = await onTerminal({});
    expect(run.stdout).toContain(`${ESC}1minferencecache doctor${ESC}0m`);
  });
  it.each([
    ['NO_COLOR=1', { NO_COLOR: '1' }, []],
    ['TERM=dumb', { TERM: 'dumb' }, []],
    ['--no-color', {}, ['--no-color']],
  ] as const)('is off with %s', async (_name, env, extra) => {
    const run = await onTerminal(env, [...extra]);
    expect(run.stdout).toContain('inferencecache doctor');
    expect(run.stdout).not.toContain(ESC);
  });
  it('is off when stdout is not a terminal', async () => {
    const run = await runBundle(['doctor', '--kubeconfig', unreachable, '--config-only', '--timeout', '3s']);
    expect(run.stdout).toContain('inferencecache doctor');
    expect(run.stdout).not.toContain(ESC);
  });
});
