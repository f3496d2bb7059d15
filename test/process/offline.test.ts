// doctor -f and dump as an operator runs them: a dump judged at the time it was taken (or --now), the
// README's pull-request gate on `helm template` output, and hostile files, each ending in one error line
// and exit 3 within bounded time and memory; SIGTERM ends a read of a stdin that never ends.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireBundle } from '../../dev/bundle.ts';
import { CHART_DIR, helmBinaries, skipReason } from '../support/helm.ts';
import { parseReport } from '../support/report-schema.ts';
import type { JsonReport } from '../support/json-report.ts';
import { planRun } from '../../src/checks/registry.ts';
import { KINDS } from '../../src/cluster/kinds/kinds.ts';
import { listsOf } from '../../src/cluster/state/reads.ts';

const dir = mkdtempSync(join(tmpdir(), 'icd-offline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The bundle under a 256 MiB heap (a parse that grew past it would crash, not end in exit 3), `stdin` piped in. */
function doctor(args: readonly string[], stdin = '', onSpawn?: (child: ReturnType<typeof spawn>) => void): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=256', requireBundle(), ...args], {
      env: { PATH: process.env['PATH'] ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (onSpawn === undefined) child.stdin.end(stdin);
    else onSpawn(child);
  });
}

const codes = (exit: Exit) => (parseReport(exit.stdout) as JsonReport).findings.map((f) => `${f.code} ${f.resource ?? ''}`);

const DUMP = `# inferencecache dump taken 2026-11-28T12:00:00.000Z by inferencecache 0.1.0 from context "prod", all namespaces
---
apiVersion: inferencecache.io/v1alpha1
kind: CacheBackendList
items:
- metadata: {name: be, namespace: ml, uid: u1}
  spec: {engineSelector: {matchLabels: {app: vllm}}}
  status:
    conditions: [{type: Ready, status: "True", reason: Ok, message: ok}]
    matchedEnginePods: 1
    firstKVEventObservedAt: "2026-11-28T11:00:00Z"
    indexParticipation: {prefixCount: 3, lastEventAt: "2026-11-28T11:59:30Z"}
---
apiVersion: v1
kind: PodList
items:
- metadata: {name: engine-0, namespace: ml, uid: p1, labels: {app: vllm}, annotations: {inferencecache.io/injected-by: u1}}
  spec: {containers: [{name: c, image: vllm:1}]}
---
apiVersion: v1
kind: EventList
items:
- metadata: {name: ev1, namespace: ml}
  reason: NoMatchingCacheBackend
  message: no CacheBackend selects pod ml/stray
  involvedObject: {kind: Pod, namespace: ml, name: stray, uid: p9}
  lastTimestamp: "2026-11-28T11:00:00Z"
# inferencecache dump complete
`;

describe('a dump is judged at the time it was taken', () => {
  it('a week later it gives the findings it gave then; --now judges it at another time', async () => {
    const file = join(dir, 'dump.yaml');
    writeFileSync(file, DUMP);
    const then = await doctor(['doctor', '-f', file, '-o', 'json']);
    expect(then.stderr).toBe('');
    expect(codes(then).filter((c) => !/^FI00[12] /.test(c))).toEqual([
      'CB006 cachebackend/ml/be',
      'EP001 pod/ml/engine-0',
      'OP001 pod/ml/stray',
    ]);
    const week = await doctor(['doctor', '-f', file, '-o', 'json', '--now', '2026-12-05T12:00:00Z']);
    expect(codes(week).filter((c) => !/^FI00[12] /.test(c))).toEqual(['CB004 cachebackend/ml/be', 'EP001 pod/ml/engine-0']);
    // Every Kind the checks list that the dump lacks (it holds CacheBackends, Pods and Events), in catalogue order.
    const lacking = listsOf(planRun({ configOnly: true }).reads)
      .map((name) => KINDS[name].kind)
      .filter((kind) => !['CacheBackend', 'Pod', 'Event'].includes(kind));
    // A Kind some check needs is a WARN (FI002); the Namespaces, which only the suppressions read here, an INFO.
    expect(codes(then).filter((c) => /^FI00[12] /.test(c))).toEqual(
      lacking.map((kind) => `${kind === 'Namespace' ? 'FI001' : 'FI002'} ${kind}`),
    );
    expect(lacking).toEqual(expect.arrayContaining(['CacheTenant', 'CachePolicy', 'Node', 'ServiceAccount', 'Namespace']));
  });
});

const [, helm4] = helmBinaries();
describe.skipIf(helm4 === undefined || skipReason(helm4) !== '')('the README pull-request gate', () => {
  const backend =
    '---\napiVersion: inferencecache.io/v1alpha1\nkind: CacheBackend\nmetadata:\n  name: llama\n  namespace: ml\nspec:\n  engineSelector:\n    matchLabels:\n      app: vllm-llama\n';
  const policy = '---\napiVersion: inferencecache.io/v1alpha1\nkind: CachePolicy\nmetadata:\n  name: default\n  namespace: ml\nspec: {}\n';
  const gate = [
    'doctor',
    '-f',
    '-',
    '--fail-on',
    'warn',
    '--suppress',
    'CB001',
    '--suppress',
    'CB002',
    '--suppress',
    'CB003',
    '--suppress',
    'FI002',
    '-o',
    'json',
  ];
  const rendered = () =>
    execFileSync(helm4?.bin ?? 'helm', ['template', 'cache', CHART_DIR, '-n', 'inference-cache-system'], { encoding: 'utf8' });

  it('fails a pull request that adds a second CachePolicy to a namespace, and passes one', async () => {
    const second = policy.replace('name: default', 'name: faster');
    const crowded = await doctor(gate, `${rendered()}${backend}${policy}${second}`);
    expect(crowded.code).toBe(1);
    expect(codes(crowded)).toContain('CP003 namespace/ml');
    const covered = await doctor(gate, `${rendered()}${backend}${policy}`);
    expect(covered.stderr).toBe('');
    expect(codes(covered)).toContain('CP002 namespace/ml');
    expect(covered.code).toBe(0);
  });

  it('fails loudly when the pipeline before it gave nothing', async () => {
    const empty = await doctor(gate, '');
    expect(empty).toMatchObject({ code: 3, stdout: '', stderr: 'error: the files named by -f hold no Kubernetes object\n' });
  });
});

describe('hostile files: one error line, exit 3, bounded time and memory', () => {
  const fixtures: [string, () => string, RegExp][] = [
    [
      'a YAML alias bomb',
      () =>
        write(
          'bomb.yaml',
          [
            'a: &a ["x","x","x","x","x","x","x","x","x"]',
            ...'bcdefgh'.split('').map(
              (k, i) =>
                `${k}: &${k} [${Array(9)
                  .fill(`*${'abcdefg'[i] ?? 'a'}`)
                  .join(',')}]`,
            ),
          ].join('\n'),
        ),
      /alias/,
    ],
    ['nesting 200,000 deep', () => write('deep.yaml', `${'['.repeat(200_000)}${']'.repeat(200_000)}`), /nests|not valid/],
    [
      'a 100 MB file',
      () => {
        const f = join(dir, 'huge.yaml');
        writeFileSync(f, '');
        truncateSync(f, 100 * 1024 * 1024);
        return f;
      },
      /holds 104857600 characters of YAML, more than the 16777216 the doctor reads as YAML: give it as JSON/,
    ],
    [
      'a 400 MB file',
      () => {
        const f = join(dir, 'huger.json');
        writeFileSync(f, '');
        truncateSync(f, 400 * 1024 * 1024);
        return f;
      },
      /holds 419430400 bytes, more than a manifest may \(335544320\)/,
    ],
    [
      'text that is not UTF-8',
      () => write('latin1.yaml', Buffer.from([0x6b, 0x69, 0x6e, 0x64, 0x3a, 0x20, 0xe9, 0x0a])),
      /is not UTF-8 text/,
    ],
    [
      'a FIFO',
      () => {
        const f = join(dir, 'fifo.yaml');
        execFileSync('mkfifo', [f]);
        return f;
      },
      /it is a FIFO, not a regular file/,
    ],
  ];
  function write(name: string, content: string | Buffer): string {
    const f = join(dir, name);
    writeFileSync(f, content);
    return f;
  }
  it.each(fixtures)('%s', async (_what, make, why) => {
    const started = Date.now();
    const exit = await doctor(['doctor', '-f', make()]);
    expect(exit.code).toBe(3);
    expect(exit.stdout).toBe('');
    expect(exit.stderr).toMatch(/^error: [^\n]+\n$/);
    expect(exit.stderr).toMatch(why);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('SIGTERM ends a read of a standard input that never ends, with exit 4', async () => {
    const exit = await doctor(['doctor', '-f', '-', '-o', 'json'], '', (child) => {
      child.stdin?.write('apiVersion: v1\n');
      setTimeout(() => child.kill('SIGTERM'), 1_000);
    });
    expect(exit.code).toBe(4);
    expect(parseReport(exit.stdout)).toMatchObject({ summary: { incomplete: 'interrupted by SIGTERM while reading the files' } });
  });
});
