// The bundle the way the image runs it: a copy of its files alone in a read-only folder with no
// node_modules, Node 24, uid 65532, no HOME. Node's permission model (--permission) then proves it reads
// no file but its own and the kubeconfig it is given: no .proto, no package.json, nothing resolved from
// disk at run time.
import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, posix } from 'node:path';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../../dev/process.ts';
import { BUNDLE_DIR, bundleFiles, requireBundle } from '../../dev/bundle.ts';
import { NONROOT_UID, bundleSandbox, removeSandbox, runSandboxed, type BundleSandbox } from '../support/sandbox.ts';
import { parseReport } from '../support/report-schema.ts';

const VERSION_LINE = /^inferencecache version \d+\.\d+\.\d+\S* \(commit \S+\)\n$/;

let sandbox: BundleSandbox;
let grpcPort = 0;

/** A kubeconfig for an API server that refuses connections. */
function unreachableKubeconfig(port: number): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'current-context: t',
    'clusters:',
    `- name: t\n  cluster:\n    server: https://127.0.0.1:${port}\n    insecure-skip-tls-verify: true`,
    'users:',
    '- name: t\n  user:\n    token: not-a-real-token',
    'contexts:',
    '- name: t\n  context:\n    cluster: t\n    user: t',
    '',
  ].join('\n');
}

/** Node flags that let the process read the bundle's files and `files`, and nothing else. */
const onlyReading = (...files: string[]): string[] => [
  '--permission',
  ...[...sandbox.bundleFiles, ...files].map((f) => `--allow-fs-read=${f}`),
];

/** What the doctor reads in a pod by design: its tokens, its labels, the termination-message file. */
const POD_INPUTS = ['/var/run/secrets/*', '/etc/podinfo/*', '/dev/termination-log'];

beforeAll(async () => {
  sandbox = bundleSandbox({ kubeconfig: unreachableKubeconfig(await closedPort()) });
  grpcPort = await closedPort();
});
afterAll(() => {
  if (sandbox !== undefined) removeSandbox(sandbox);
});

describe('the sandbox is what the image gives the bundle', () => {
  it('Node 24, uid and gid 65532 (when the tests run as root), no HOME, a read-only cwd, no node_modules', async () => {
    const probe = [
      "const fs = require('node:fs'); const path = require('node:path');",
      'let writable = true; try { fs.accessSync(process.cwd(), fs.constants.W_OK); } catch { writable = false; }',
      'const modules = []; for (let d = process.cwd(); ; d = path.dirname(d)) { if (fs.existsSync(path.join(d, "node_modules"))) modules.push(d); if (d === path.dirname(d)) break; }',
      'console.log(JSON.stringify({ version: process.version, uid: process.getuid(), gid: process.getgid(), home: process.env.HOME ?? null, writable, modules, entries: fs.readdirSync(process.cwd()).sort() }));',
    ].join('\n');
    const run = await runSandboxed(sandbox, [], { program: '', nodeArgs: ['-e', probe] });
    expect(run.stderr).toBe('');
    const seen = JSON.parse(run.stdout) as {
      version: string;
      uid: number;
      gid: number;
      home: string | null;
      writable: boolean;
      modules: string[];
      entries: string[];
    };
    expect(seen.version).toMatch(/^v24\./);
    if (process.getuid?.() === 0) expect([seen.uid, seen.gid]).toEqual([NONROOT_UID, NONROOT_UID]);
    else expect(seen.uid).not.toBe(0);
    expect(seen.home).toBeNull();
    expect(seen.writable).toBe(false);
    expect(seen.modules).toEqual([]);
    expect(seen.entries).toEqual(['chunks', 'inferencecache.mjs', 'kubeconfig']);
  });
});

describe('the bundle alone', () => {
  it('--version', async () => {
    const run = await runSandboxed(sandbox, ['--version']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(VERSION_LINE);
  });

  it('--version reading nothing but its own files', async () => {
    const run = await runSandboxed(sandbox, ['--version'], { nodeArgs: onlyReading() });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(VERSION_LINE);
  });

  it('the permission model really refuses other reads (the checks below can fail)', async () => {
    const run = await runSandboxed(sandbox, ['doctor', '--kubeconfig', sandbox.files['kubeconfig'] ?? '', '--config-only'], {
      nodeArgs: onlyReading(),
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/^error: cannot load kubeconfig .*(restricted|allow-fs-read|ERR_ACCESS_DENIED)\n$/);
  });

  it('codes -o json reading nothing but its own files', async () => {
    const run = await runSandboxed(sandbox, ['codes', '-o', 'json'], { nodeArgs: onlyReading() });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toBeTruthy();
  });

  const doctorRuns: { name: string; args: () => string[]; codes: string[] }[] = [
    { name: '--config-only', args: () => ['--config-only'], codes: ['API001'] },
    {
      name: 'with the server probes (gRPC and HTTP clients loaded)',
      args: () => ['--server-endpoint', `127.0.0.1:${grpcPort}`],
      codes: ['API001', 'SV001', 'SN001', 'PL001', 'PB001'],
    },
  ];
  it.each(doctorRuns)('doctor $name reads only the bundle, the kubeconfig and its pod inputs, and reports', async ({ args, codes }) => {
    const kubeconfig = sandbox.files['kubeconfig'] ?? '';
    const run = await runSandboxed(sandbox, ['doctor', '--kubeconfig', kubeconfig, '-o', 'json', '--timeout', '5s', ...args()], {
      nodeArgs: onlyReading(kubeconfig, ...POD_INPUTS),
    });
    expect(run.stderr).not.toMatch(/ERR_ACCESS_DENIED|restricted|unexpected failure/);
    expect(run.code).toBe(2);
    const report = parseReport(run.stdout) as { findings: { code: string }[] };
    expect(report.findings.map((f) => f.code)).toEqual(expect.arrayContaining(codes));
  });
});

describe("the bundle's files", () => {
  requireBundle();
  const files = bundleFiles();
  const entry = 'inferencecache.mjs';
  const textOf = (file: string): string => readFileSync(join(BUNDLE_DIR, file), 'utf8');

  /** Module specifiers in code (comments stripped by esbuild first, so JSDoc types do not count). */
  const specifiers = async (file: string): Promise<{ loaded: string[]; dynamic: string[] }> => {
    const { code } = await transform(textOf(file), {
      format: 'esm',
      platform: 'node',
      minifyWhitespace: true,
      legalComments: 'none',
      logLevel: 'silent',
    });
    return {
      loaded: [
        ...[...code.matchAll(/\bimport\s*[^'"();]*?\bfrom\s*(['"])([^'"]+)\1/g)].map((m) => m[2] ?? ''),
        ...[...code.matchAll(/\bimport\s*(['"])([A-Za-z@.][\w@./:-]*)\1/g)].map((m) => m[2] ?? ''),
      ],
      dynamic: [
        ...[...code.matchAll(/\brequire\((['"`])([A-Za-z@.][\w@./:-]*)\1\)/g)].map((m) => m[2] ?? ''),
        ...[...code.matchAll(/\bimport\((['"`])([A-Za-z@.][\w@./:-]*)\1\)/g)].map((m) => m[2] ?? ''),
      ],
    };
  };
  /** The bundle's file a relative specifier in `file` names. */
  const target = (file: string, specifier: string): string => posix.join(posix.dirname(file), specifier);

  it('is an ESM entry for Node with a shebang, and ES module chunks beside it', () => {
    expect(files).toContain(entry);
    expect(files.filter((f) => f !== entry).length).toBeGreaterThan(0);
    expect(files.every((f) => f === entry || /^chunks\/chunk-\w+\.mjs$/.test(f))).toBe(true);
    expect(textOf(entry).startsWith('#!/usr/bin/env node\n')).toBe(true);
    for (const file of files) expect(textOf(file)).toMatch(/^import\s/m);
  });

  it('imports and requires only Node built-ins by literal name, and its own chunks by relative name', async () => {
    const strangers: string[] = [];
    for (const file of files) {
      const { loaded, dynamic } = await specifiers(file);
      for (const specifier of [...loaded, ...dynamic]) {
        const own = specifier.startsWith('./') || specifier.startsWith('../');
        if (own ? !files.includes(target(file, specifier)) : !isBuiltin(specifier)) strangers.push(`${file}: ${specifier}`);
      }
    }
    expect(strangers).toEqual([]);
    expect((await specifiers(entry)).loaded).toContain('node:module');
  });

  it('the entry loads nothing before its Node check but chunks that load nothing but Node built-ins', async () => {
    const { loaded } = await specifiers(entry);
    const chunks = loaded.filter((s) => !isBuiltin(s)).map((s) => target(entry, s));
    expect(chunks.length).toBeGreaterThan(0);
    for (const chunk of chunks) expect((await specifiers(chunk)).loaded.filter((s) => !isBuiltin(s))).toEqual([]);
  });
});
