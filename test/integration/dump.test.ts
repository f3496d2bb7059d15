// `inferencecache dump` against the real control plane, as an operator meets it: no credential in any
// form, YAML that kubectl, PyYAML and the yaml package read alike, the exit codes the README states (a
// 403 named, no read at all, stdout that cannot be written), SIGTERM at any point (while reading, or
// while a pipe nobody reads holds the stream) ending it promptly with a stream doctor -f refuses, and
// a JSON dump of 100,000 pods that doctor -f accepts.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { requireBundle } from '../../dev/bundle.ts';
import { doctorIdentity, kubeconfigWithToken, type Identity } from '../../dev/cluster/identity.ts';
import { createNamespace, installCrds } from '../../dev/cluster/manifests.ts';
import { nodeBinaries } from '../../dev/cluster/node/node.ts';
import { createBackend, createPodWithSpec } from '../../dev/cluster/objects.ts';
import { closedPort } from '../../dev/process.ts';
import { dumpedObject } from '../../src/cluster/kinds/dump-policy.ts';
import { POD_KIND } from '../../src/cluster/kinds/pod.ts';
import { dumpJson } from '../../src/files/dump-stream.ts';
import { runBundle } from '../support/bundle.ts';
import { startApiProxy, type ApiProxy } from '../support/faults/api-proxy.ts';
import { leakIn } from '../support/leak-forms.ts';
import { HANG_GUARD_MS, expectEndedWellBefore } from '../support/timing.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';

const NS = 'dump-trust';
const PASSWORDS = ['Pa55-in-the-registry-url', 'hunter2-flag-value', 'T0ken-after-a-flag', 'redis-pa55word', 'env-value-s3cret'];
/** Strings a YAML 1.1 reader would take for something else, in places every Kind keeps. */
const AMBIGUOUS = { y: 'y', no: 'no', octal: '0755', octal12: '0o17', sexagesimal: '1:20', date: '2026-01-01', equals: '=', merge: '<<' };
/** Those that a label value may be. */
const AMBIGUOUS_LABELS = { y: 'y', no: 'no', octal: '0755', octal12: '0o17', date: '2026-01-01', on: 'on' };

const env = () => ({ PATH: process.env['PATH'] ?? '' });

describe.skipIf(kubeconfig === '')(`inferencecache dump, against the real control plane${skipReason}`, () => {
  const kc = new KubeConfig();
  const dir = mkdtempSync(join(tmpdir(), 'icd-dump-'));
  let admin = '';
  let noSecrets: Identity;
  let proxy: ApiProxy;

  beforeAll(async () => {
    requireBundle();
    kc.loadFromFile(kubeconfig);
    admin = kubeconfig;
    await installCrds(kc);
    await createNamespace(kc, NS);
    const registryKey = `https://robot:${PASSWORDS[0] ?? ''}@registry.example:5000`;
    await kc.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: { name: 'pull' },
        type: 'kubernetes.io/dockerconfigjson',
        data: {
          '.dockerconfigjson': Buffer.from(
            JSON.stringify({ auths: { [registryKey]: { auth: Buffer.from(`robot:${PASSWORDS[0] ?? ''}`).toString('base64') } } }),
          ).toString('base64'),
        },
      },
    });
    await createBackend(
      kc,
      NS,
      'be',
      { engineSelector: { matchLabels: { app: 'engine' } } },
      undefined,
      // A large annotation makes the stream larger than a pipe holds, for the stalled-reader case.
      { ...AMBIGUOUS, 'example.com/notes': `redis://:${PASSWORDS[3] ?? ''}@redis:6379 ${'x'.repeat(200_000)}` },
    );
    await createPodWithSpec(
      kc,
      NS,
      'server-0',
      { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'server', app: 'engine', ...AMBIGUOUS_LABELS },
      {
        imagePullSecrets: [{ name: 'pull' }],
        containers: [
          {
            name: 'server',
            image: 'registry.example:5000/server:1',
            args: [`--password=${PASSWORDS[1] ?? ''}`, '--token', PASSWORDS[2] ?? '', '--grpc-port=9090'],
            env: [{ name: 'API_KEY', value: PASSWORDS[4] ?? '' }],
          },
        ],
      },
    );
    noSecrets = await doctorIdentity(kc, {
      namespace: NS,
      name: 'dumper',
      server: inject('server'),
      caFile: inject('caFile'),
      deny: ['secrets'],
    });
    proxy = await startApiProxy({ server: inject('server'), caFile: inject('caFile') }, dir);
  }, 120_000);

  afterAll(async () => {
    await proxy.close();
  });

  const dump = (args: readonly string[], kubeconfigFile = admin) =>
    runBundle(['dump', '--kubeconfig', kubeconfigFile, '-n', NS, ...args], { env: env() });

  it('holds no credential in any form, in YAML or JSON; keeps what the checks read', async () => {
    for (const format of ['yaml', 'json']) {
      const run = await dump(['-o', format]);
      expect(run.code, run.stderr).toBe(0);
      expect(leakIn(run.stdout, PASSWORDS), `dump -o ${format}`).toBeUndefined();
      const [, pullData = ''] = /\.dockerconfigjson"?: ?"?([A-Za-z0-9+/=]+)/.exec(run.stdout) ?? [];
      expect(Buffer.from(pullData, 'base64').toString('utf8')).toContain('"https://REDACTED@registry.example:5000"');
      expect(run.stdout).toContain('--password=REDACTED');
      expect(run.stdout).toContain('--grpc-port=9090');
      const file = join(dir, `dump.${format}`);
      writeFileSync(file, run.stdout);
      const judged = await runBundle(['doctor', '-f', file, '-n', NS, '-o', 'json'], { env: env() });
      expect(judged.stderr).toBe('');
      expect(judged.code).not.toBe(3);
    }
  });

  it('kubectl, PyYAML and the yaml package read the YAML dump alike', async () => {
    const run = await dump(['-o', 'yaml']);
    const file = join(dir, 'alike.yaml');
    writeFileSync(file, run.stdout);
    const mine = parseAllDocuments(run.stdout)
      .map((d) => d.toJS() as { kind: string; metadata?: { name?: string } })
      .filter((o) => !o.kind.endsWith('List'));
    const key = (o: { kind: string; metadata?: { name?: string } }) => `${o.kind}/${o.metadata?.name ?? ''}`;
    // kubectl decodes each document into the object it would send (a client dry run sends nothing),
    // and prints them one JSON document after another.
    const printed = execFileSync(nodeBinaries().kubectl, ['--kubeconfig', admin, 'create', '--dry-run=client', '-o', 'json', '-f', file], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const kubectlItems = printed
      .split(/\n(?=\{\n)/)
      .map((doc) => JSON.parse(doc) as { kind: string; metadata?: { name?: string; labels?: unknown; annotations?: unknown } });
    expect(kubectlItems.map(key).sort()).toEqual(mine.map(key).sort());
    for (const item of kubectlItems) {
      const same = mine.find((o) => key(o) === key(item)) as { metadata?: { labels?: unknown; annotations?: unknown } } | undefined;
      expect(item.metadata?.labels, key(item)).toEqual(same?.metadata?.labels);
      expect(item.metadata?.annotations, key(item)).toEqual(same?.metadata?.annotations);
    }
    const py = spawnSync('python3', ['-c', 'import sys, json, yaml; print(json.dumps(list(yaml.safe_load_all(sys.stdin))))'], {
      input: run.stdout,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(py.status, py.stderr).toBe(0);
    expect(JSON.parse(py.stdout)).toEqual(parseAllDocuments(run.stdout).map((d) => d.toJS() as unknown));
  });

  it('exit 1 when a read failed, a 403 on a pull secret included: named on stderr and in the stream', async () => {
    const run = await dump(['-o', 'yaml'], noSecrets.kubeconfig);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^warning: a read failed, so its objects are missing: Secret dump-trust\/pull: 403 .*forbidden/m);
    expect(run.stdout).toMatch(/^# A read failed, so its objects are missing: Secret dump-trust\/pull: 403 /m);
    expect(leakIn(run.stdout, [noSecrets.token])).toBeUndefined();
  });

  it('exit 3 when no read got through: one line, nothing on stdout', async () => {
    const unreachable = kubeconfigWithToken(`https://127.0.0.1:${await closedPort()}`, inject('caFile'), 'x');
    const run = await dump([], unreachable);
    expect(run).toMatchObject({ code: 3, stdout: '' });
    expect(run.stderr).toMatch(/^error: no read got through, so nothing was written: .*ECONNREFUSED.*\n$/);
  });

  it('exit 3 when stdout cannot be written (> /dev/full): one line', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const run = spawnSync(process.execPath, [requireBundle(), 'dump', '--kubeconfig', admin, '-n', NS], {
        env: env(),
        stdio: ['ignore', full, 'pipe'],
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status).toBe(3);
      expect(run.stderr).toMatch(/^error: the dump could not be written to standard output: .*ENOSPC.*\n$/);
    } finally {
      closeSync(full);
    }
  });

  /** Starts a dump; with `read` false its stdout is a pipe nobody reads, which fills and holds the stream. */
  function startDump(kubeconfigFile: string, read: boolean) {
    const child = spawn(process.execPath, [requireBundle(), 'dump', '--kubeconfig', kubeconfigFile, '-n', NS, '-o', 'yaml'], {
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    if (read) child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.on(read ? 'close' : 'exit', (code) => resolve(code)));
    return { child, closed, stdout: () => stdout, stderr: () => stderr };
  }

  it('SIGTERM while a pipe nobody reads holds the stream: exit 4 promptly, saying the dump is incomplete', async () => {
    const run = startDump(admin, false);
    // The reads take well under this; then the stream waits on the full pipe (it is larger than a pipe holds).
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(run.child.exitCode).toBeNull();
    const sent = Date.now();
    run.child.kill('SIGTERM');
    const code = await run.closed;
    expect(Date.now() - sent).toBeLessThan(HANG_GUARD_MS);
    expectEndedWellBefore(Date.now() - sent, 60_000);
    expect(code).toBe(4);
    expect(run.stderr()).toBe('error: interrupted by SIGTERM; the dump is incomplete and says so at its end (doctor -f refuses it)\n');
    run.child.stdout.destroy();
  });

  it('SIGTERM while the API server has not answered: exit 4 promptly, a stream that says so, refused by doctor -f', async () => {
    proxy.setRules([{ path: /\/pods$/, action: { kind: 'hang' } }]);
    try {
      const run = startDump(kubeconfigWithToken(proxy.server, proxy.caFile, noSecrets.token), true);
      const started = Date.now();
      while (proxy.matched() === 0 && Date.now() - started < 30_000) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(proxy.matched()).toBeGreaterThan(0);
      const sent = Date.now();
      run.child.kill('SIGTERM');
      const code = await run.closed;
      expect(Date.now() - sent).toBeLessThan(HANG_GUARD_MS);
      expect(code).toBe(4);
      const got = run.stdout();
      expect(got).toMatch(
        /^# inferencecache dump taken \S+ by inferencecache .*\n# inferencecache dump incomplete: interrupted by SIGTERM while reading the cluster\n$/,
      );
      const file = join(dir, 'interrupted.yaml');
      writeFileSync(file, got);
      const judged = await runBundle(['doctor', '-f', file], { env: env() });
      expect(judged).toMatchObject({ code: 3 });
      expect(judged.stderr).toContain('is an incomplete dump (interrupted by SIGTERM while reading the cluster): take the dump again');
    } finally {
      proxy.setRules([]);
    }
  });

  it('a JSON dump of 100,000 engine pods is within what doctor -f reads, and is judged', async () => {
    const recorded = JSON.parse(readFileSync(join(import.meta.dirname, '../golden/protobuf/pods.json'), 'utf8')) as {
      items: { metadata: Record<string, unknown> }[];
    };
    const base = recorded.items[0] as { metadata: Record<string, unknown> };
    const items = Array.from({ length: 100_000 }, (_, i) =>
      dumpedObject(POD_KIND, { ...base, metadata: { ...base.metadata, name: `engine-${i}`, uid: `uid-${i}`, labels: { app: 'engine' } } }),
    );
    const backend = {
      apiVersion: 'inferencecache.io/v1alpha1',
      kind: 'CacheBackend',
      metadata: { name: 'be', namespace: base.metadata['namespace'], uid: 'be-uid' },
      spec: { engineSelector: { matchLabels: { app: 'engine' } } },
    };
    const text = [
      ...dumpJson({
        headline: 'inferencecache dump taken 2026-12-06T00:00:00.000Z by inferencecache 0.1.0 from context "c", all namespaces',
        notes: [],
        lists: [
          { apiVersion: 'inferencecache.io/v1alpha1', kind: 'CacheBackendList', items: [backend] },
          { apiVersion: 'v1', kind: 'PodList', items },
          { apiVersion: 'v1', kind: 'EventList', items: [] },
        ],
      }).pieces,
    ].join('');
    const file = join(dir, 'envelope.json');
    writeFileSync(file, text);
    const run = await runBundle(['doctor', '-f', file, '-o', 'json', '--timeout', '5m'], { env: env(), timeoutMs: 300_000 });
    expect(run.stderr).toBe('');
    expect(run.code).not.toBe(3);
    const report = JSON.parse(run.stdout) as { findings: { code: string }[] };
    expect(report.findings.filter((f) => f.code === 'EP001')).toHaveLength(100_000);
  }, 300_000);
});
