// The fault suite: the built bundle against everything that can go wrong around it, on the real test
// control plane. A TLS proxy in front of kube-apiserver delays, drops, answers 429/500/garbage and
// malformed lists, never ends a list, rewrites objects into hostile ones; permissive copies of the CRDs
// let wrong-typed and hostile objects in through the real API server; exec credential plugins fail,
// hang and print garbage; the servers behind --server-endpoint refuse, black-hole, speak TLS or
// garbage, answer 404/500/non-JSON/huge/gzip bombs, hang, redirect in a loop or elsewhere, reset; and
// a run is interrupted. Every case checks the guarantees of support/faults/safe-run.ts in every
// output format of the report, and again with the amd64 single executable (`npm run build:exe`) in
// JSON; the suite ends by checking that no run sent a mutating request.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pollUntil } from '../../dev/poll.ts';
import { writesBy } from '../../dev/cluster/audit.ts';
import { closedPort } from '../../dev/process.ts';
import { requireBundle } from '../../dev/bundle.ts';
import { ensureExecutables } from '../../dev/executable.ts';
import { MAX_MESSAGE_CHARS, MAX_QUOTED_CHARS, cutMark } from '../../src/go/cut.ts';
import {
  condition,
  coreEvent,
  createBackend,
  createPodWithSpec,
  createPolicy,
  createTenant,
  uniqueName,
  writePodStatus,
  ago,
} from '../../dev/cluster/objects.ts';
import { doctorRuns } from '../support/doctor-runs.ts';
import { startApiProxy, type ApiProxy, type ProxyRule } from '../support/faults/api-proxy.ts';
import {
  FORMATS,
  alsoRunExecutable,
  expectSafe,
  runInAllFormats,
  runsPerCase,
  type Format,
  type ReportDocument,
} from '../support/faults/safe-run.ts';
import { messageText } from '../../src/report/render/sarif.ts';
import { markdownText } from '../../src/report/render/markdown.ts';
import { applyObjects, createNamespace, installCrds, loadManifests, type KubeObject } from '../../dev/cluster/manifests.ts';
import { kubeconfigWithToken, type Identity } from '../../dev/cluster/identity.ts';
import { createServingPki } from '../../dev/cluster/pki/serving-pki.ts';
import { startBlackhole, getClosedPort } from '../support/servers/blackhole.ts';
import { startGrpcHealthServer, type HealthMode } from '../support/servers/grpc-health-server.ts';
import { startHttpServer, type RouteBehaviour, type TestHttpServer } from '../support/servers/http-server.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';

/** Every run's --timeout: each must be done within it plus one second. */
const TIMEOUT = '5s';
const TIMEOUT_MS = 5_000;

/** Cluster data that would drive a terminal or forge a report line if printed raw. */
const HOSTILE =
  'evil \u001b[2J\u001b]52;c;cm0gLXJmIC8=\u0007 \u202egnp.exe \u0085 \u0000\b\r\nSummary: 9 OK, 0 INFO, 0 WARN, 0 FAIL  (exit 0)';

/** The bearer token handed to the server probes; it must never show. */
const SNAPSHOT_TOKEN = 'snapshot-token-0af39c1e5d7b';

describe.skipIf(kubeconfig === '')(`the fault suite${skipReason}`, () => {
  const kc = new KubeConfig();
  const runs = doctorRuns(kc);
  const dir = mkdtempSync(join(tmpdir(), 'icd-faults-'));
  const ns = uniqueName('faults');
  const hostileNs = uniqueName('hostile');
  const tokenFile = join(dir, 'snapshot-token');
  /** A FIFO that nobody ever writes: a file an operator may name by mistake, or on purpose. */
  const operatorFifo = join(dir, 'operator-fifo');
  let id: Identity;
  let proxy: ApiProxy;
  let viaProxy = '';
  const secrets = () => [id.token, SNAPSHOT_TOKEN];

  /** `doctor` against the namespace with a base kubeconfig; the case adds the rest. */
  const run = (kubeconfigFile: string, more: readonly string[], env: NodeJS.ProcessEnv = {}) =>
    runInAllFormats(['--kubeconfig', kubeconfigFile, '-n', ns, '--timeout', TIMEOUT, ...more], { env });

  const expectCase = (
    report: Parameters<typeof expectSafe>[0],
    exitCode: number,
    codes: readonly string[] = [],
    absent: readonly string[] = [],
  ) => expectSafe(report, { exitCode, timeoutMs: TIMEOUT_MS, secrets: secrets(), codes, absent });

  /** The amd64 single executable, which every case runs too. */
  let executable = '';

  beforeAll(async () => {
    requireBundle();
    [executable = ''] = ensureExecutables();
    alsoRunExecutable(executable);
    kc.loadFromFile(kubeconfig);
    await installCrds(kc);
    await createNamespace(kc, ns);
    await createBackend(
      kc,
      ns,
      'steady',
      { engineSelector: { matchLabels: { app: 'steady' } } },
      {
        conditions: [condition('Ready', 'True')],
        matchedEnginePods: 1,
        firstKVEventObservedAt: ago(3_600_000),
        // Ahead of time, so that it stays fresh however long the suite runs (CB004 is judged on the
        // doctor's clock; doctor.test.ts covers staleness).
        indexParticipation: { prefixCount: 3, lastEventAt: ago(-3_600_000) },
      },
    );
    await createTenant(kc, ns, 'team', { tenantID: 'team' });
    await createPolicy(kc, ns, 'only');
    id = await runs.identity(ns, 'faults');
    proxy = await startApiProxy({ server: inject('server'), caFile: inject('caFile') }, dir);
    viaProxy = kubeconfigWithToken(proxy.server, proxy.caFile, id.token);
    writeFileSync(tokenFile, `${SNAPSHOT_TOKEN}\n`);
    execFileSync('mkfifo', [operatorFifo]);
  });

  afterAll(async () => {
    await proxy.close();
  });

  describe('the API server, through a misbehaving proxy', () => {
    const through = async (rules: readonly ProxyRule[], more: readonly string[] = ['--config-only']) => {
      proxy.setRules(rules);
      const result = await run(viaProxy, more);
      proxy.setRules([]);
      return result;
    };
    const baseline = ['CB006', 'CT002', 'CP002'];

    it('passes everything through: the ordinary report', async () => {
      expectCase(await through([]), 0, baseline);
    });

    it('delays every answer within the deadline: the same report', async () => {
      expectCase(await through([{ path: /./, action: { kind: 'delay', ms: 300 } }]), 0, baseline);
    });

    it('drops the connection of the pod list: API001 for the checks that need pods, the rest judged', async () => {
      const report = expectCase(await through([{ path: /\/pods$/, action: { kind: 'drop' } }]), 2, ['API001', 'CB006', 'CT002']);
      expect(report?.findings.filter((f) => f.code === 'API001').map((f) => f.resource)).toEqual(['Pod', 'Pod', 'Pod']);
    });

    it('answers 429 to the Event list: API001 Event with the API server’s message', async () => {
      const body = JSON.stringify({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        message: 'too many requests, please try again later',
        reason: 'TooManyRequests',
        code: 429,
      });
      const report = expectCase(await through([{ path: /\/events$/, action: { kind: 'status', status: 429, body } }]), 2, ['API001']);
      expect(report?.findings.find((f) => f.resource === 'Event')?.message).toContain('too many requests');
    });

    it('answers 500 with a hostile Status message: API001, and the message shown, not obeyed', async () => {
      const body = JSON.stringify({ kind: 'Status', status: 'Failure', message: HOSTILE, code: 500 });
      const runsOf = await through([{ path: /\/cachetenants$/, action: { kind: 'status', status: 500, body } }]);
      const report = expectCase(runsOf, 2, ['API001']);
      expect(report?.findings.find((f) => f.resource === 'CacheTenant')?.message).toContain('\u001b[2J');
      expect(runsOf.human.stdout).toContain('evil \\x1b[2J\\x1b]52;c;cm0gLXJmIC8=\\x07 \\u202egnp.exe \\x85 \\x00\\x08\\r\\nSummary: 9 OK');
    });

    it('answers garbage that is not JSON: API001', async () => {
      expectCase(await through([{ path: /\/cachepolicies$/, action: { kind: 'body', body: `<html>${HOSTILE}</html>` } }]), 2, [
        'API001',
        'CB006',
      ]);
    });

    it('answers a list whose items are not a list: API001, never an empty list', async () => {
      const report = expectCase(
        await through([{ path: /\/pods$/, action: { kind: 'body', body: '{"kind":"PodList","metadata":{},"items":{"evil":true}}' } }]),
        2,
        ['API001'],
      );
      expect(report?.findings.filter((f) => f.resource === 'Pod').map((f) => f.message)).toEqual(
        Array(3).fill(expect.stringContaining('is not a list: it has no items array')),
      );
    });

    it('never ends the Event list: stopped after 1000 pages, API001 with the count', async () => {
      // 2,000 pages through the proxy take longer than the suite's usual deadline: this case has its own.
      proxy.setRules([{ path: /\/events$/, action: { kind: 'endless-continue' } }]);
      const runsOf = await runInAllFormats(['--kubeconfig', viaProxy, '-n', ns, '--timeout', '60s', '--config-only']);
      proxy.setRules([]);
      const report = expectSafe(runsOf, { exitCode: 2, timeoutMs: 60_000, secrets: secrets(), codes: ['API001'] });
      expect(report?.findings.find((f) => f.resource === 'Event')?.message).toContain('stopped after 1000 pages');
    }, 120_000);

    it('never answers the Node list: API001 at the deadline, nothing else lost', async () => {
      // NodeFit reads nodes only for a pending pod of the install: there is none, so no finding waits on them.
      expectCase(await through([{ path: /\/nodes$/, action: { kind: 'hang' } }]), 0, baseline);
    });

    it('answers nothing before the deadline: API001 for every check, on time', async () => {
      const report = expectCase(await through([{ path: /./, action: { kind: 'delay', ms: 10_000 } }]), 2, ['API001'], ['CB006']);
      expect(report?.findings.every((f) => f.code === 'API001' || f.code.startsWith('NS'))).toBe(true);
    });

    it('rewrites a CacheBackend condition into a hostile one: CB001, shown and not obeyed', async () => {
      const hostile = (answer: unknown) => {
        const list = answer as { items: { status: Record<string, unknown> }[] };
        for (const item of list.items) item.status['conditions'] = [{ type: 'Ready', status: 'False', reason: HOSTILE, message: HOSTILE }];
        return list;
      };
      const runsOf = await through([{ path: /\/cachebackends$/, action: { kind: 'transform', change: hostile } }]);
      expectCase(runsOf, 1, ['CB001']);
      expect(runsOf.table.stdout).toContain('\\x1b[2J');
    });

    it('rewrites a CacheBackend condition into one of 100,000 characters: cut at 2,048, the cut marked, in every format', async () => {
      const long = (answer: unknown) => {
        const list = answer as { items: { status: Record<string, unknown> }[] };
        for (const item of list.items)
          item.status['conditions'] = [{ type: 'Ready', status: 'False', reason: 'Long', message: `${'m'.repeat(100_000)}` }];
        return list;
      };
      const runsOf = await through([{ path: /\/cachebackends$/, action: { kind: 'transform', change: long } }]);
      const report = expectCase(runsOf, 1, ['CB001']);
      const cb001 = report?.findings.find((f) => f.code === 'CB001')?.message ?? '';
      expect(cb001).toContain(`${'m'.repeat(MAX_QUOTED_CHARS)}${cutMark(100_000 - MAX_QUOTED_CHARS)}`);
      for (const f of report?.findings ?? []) expect(f.message.length).toBeLessThan(MAX_MESSAGE_CHARS + 64);
      const mark = `[cut: ${100_000 - MAX_QUOTED_CHARS} more characters]`;
      // SARIF escapes brackets (they would make a link; in a JSON string), Markdown every punctuation mark: the mark as each writes it.
      const marked = (format: Format) =>
        format === 'sarif' ? JSON.stringify(messageText(mark)).slice(1, -1) : format === 'markdown' ? markdownText(mark) : mark;
      for (const format of FORMATS) {
        expect(runsOf[format].stdout, format).toContain(marked(format));
        expect(runsOf[format].stdout, format).not.toContain('m'.repeat(MAX_QUOTED_CHARS + 1));
      }
    });

    it('answers counts at the int64 extremes: printed exactly', async () => {
      const runsOf = await through([
        {
          path: /\/cachetenants$/,
          action: {
            kind: 'body',
            body: `{"kind":"CacheTenantList","metadata":{},"items":[{"metadata":{"namespace":"${ns}","name":"team"},"spec":{"tenantID":"team","quota":{"maxIndexEntries":9223372036854775806}},"status":{"indexEntries":9223372036854775807,"conditions":[{"type":"QuotaExceeded","status":"True","reason":"Over","message":""}]}}]}`,
          },
        },
      ]);
      const report = expectCase(runsOf, 1, ['CT001']);
      expect(report?.findings.find((f) => f.code === 'CT001')?.message).toContain(
        '9223372036854775807 index entries, maxIndexEntries quota 9223372036854775806',
      );
    });

    it('rewrites the CacheBackend list into objects of every wrong type: judged without a crash', async () => {
      const body = JSON.stringify({
        kind: 'CacheBackendList',
        metadata: {},
        items: [
          null,
          5,
          'x',
          [],
          { metadata: 'm', spec: 'bad', status: [] },
          { metadata: { name: 7 }, status: { conditions: 'x', matchedEnginePods: 'many' } },
        ],
      });
      expectCase(await through([{ path: /\/cachebackends$/, action: { kind: 'body', body } }]), 1, ['CB001', 'CB003']);
    });

    it('forbids the Node list: nothing needed it (no pending pod), so nothing is lost', async () => {
      const body = JSON.stringify({ kind: 'Status', status: 'Failure', message: 'nodes is forbidden', reason: 'Forbidden', code: 403 });
      expectCase(await through([{ path: /\/nodes$/, action: { kind: 'status', status: 403, body } }]), 0, baseline);
    });

    it('does not serve a CRD (404): API001 that asks whether it is installed', async () => {
      const body = JSON.stringify({
        kind: 'Status',
        status: 'Failure',
        message: 'the server could not find the requested resource',
        reason: 'NotFound',
        code: 404,
      });
      const report = expectCase(await through([{ path: /\/cachepolicies$/, action: { kind: 'status', status: 404, body } }]), 2, [
        'API001',
      ]);
      expect(report?.findings.find((f) => f.resource === 'CachePolicy')?.message).toContain('is the CRD installed?');
    });

    it('redirects the pod list elsewhere: not followed, API001', async () => {
      expectCase(
        await through([{ path: /\/pods$/, action: { kind: 'status', status: 302, headers: { location: 'https://elsewhere.test/' } } }]),
        2,
        ['API001'],
      );
    });

    it('presents a certificate the kubeconfig does not trust: API001 everywhere, on time', async () => {
      const untrusted = kubeconfigWithToken(proxy.server, inject('caFile'), id.token);
      expectCase(await run(untrusted, ['--config-only']), 2, ['API001'], ['CB006']);
    });

    it('is not there at all (refused): API001 everywhere', async () => {
      const down = kubeconfigWithToken(`https://127.0.0.1:${await closedPort()}`, inject('caFile'), id.token);
      expectCase(await run(down, ['--config-only']), 2, ['API001'], ['CB006']);
    });

    it('accepts the connection and never speaks TLS: API001 everywhere, on time', async () => {
      const hole = await startBlackhole();
      try {
        const silent = kubeconfigWithToken(`https://${hole.address}`, inject('caFile'), id.token);
        expectCase(await run(silent, ['--config-only']), 2, ['API001'], ['CB006']);
      } finally {
        await hole.close();
      }
    });
  });

  describe('hostile objects through the real API server (permissive copies of the CRDs)', () => {
    beforeAll(async () => {
      const permissive = loadManifests('crds').map((crd): KubeObject => {
        const spec = crd['spec'] as { versions: { schema?: unknown }[] };
        return {
          ...crd,
          spec: {
            ...spec,
            versions: spec.versions.map((v) => ({
              ...v,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            })),
          },
        };
      });
      await applyObjects(kc, permissive);
      await waitForPermissive(kc);
      await createNamespace(kc, hostileNs);
      await createBackend(
        kc,
        hostileNs,
        'wrong-types',
        { engineSelector: 'all', remoteStorage: 'yes' },
        {
          conditions: 'x',
          matchedEnginePods: 'many',
          indexParticipation: [],
          endpoint: 5,
        },
      );
      await createBackend(
        kc,
        hostileNs,
        'hostile',
        { remoteStorage: { ownership: 'Managed' } },
        {
          conditions: [{ type: 'Ready', status: 'False', reason: HOSTILE, message: HOSTILE, lastTransitionTime: ago(0) }],
          firstKVEventObservedAt: ago(60_000),
          indexParticipation: { prefixCount: 1, lastEventAt: ago(1_000) },
          remoteStorage: { endpoint: `\u001b]0;pwned\u0007127.0.0.1:${await closedPort()}` },
        },
      );
      await createTenant(
        kc,
        hostileNs,
        'over',
        { tenantID: HOSTILE, quota: { maxIndexEntries: 10 } },
        {
          indexEntries: 'a great many',
          conditions: [condition('QuotaExceeded', 'True', 'Over', HOSTILE)],
        },
      );
      const pod = await createPodWithSpec(
        kc,
        hostileNs,
        'forged',
        { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'cache' },
        {
          containers: [{ name: 'cache', image: 'registry.test/cache:v1' }],
        },
      );
      await writePodStatus(kc, hostileNs, 'forged', {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'cache',
            image: 'registry.test/cache:v1',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ImagePullBackOff', message: HOSTILE } },
          },
        ],
      });
      await coreEvent(kc, hostileNs, { name: 'forged', uid: pod }, 'NoMatchingCacheBackend', HOSTILE);
    });

    afterAll(async () => {
      const custom = kc.makeApiClient(CustomObjectsApi);
      for (const [plural, name] of [
        ['cachebackends', 'wrong-types'],
        ['cachebackends', 'hostile'],
        ['cachetenants', 'over'],
      ] as const) {
        await custom
          .deleteNamespacedCustomObject({ group: 'inferencecache.io', version: 'v1alpha1', namespace: hostileNs, plural, name })
          .catch(() => undefined);
      }
      await installCrds(kc);
    });

    it('wrong-typed fields, hostile strings in conditions, endpoints, tenants, pod states and Events: all shown, none obeyed', async () => {
      const runsOf = await runInAllFormats([
        '--kubeconfig',
        id.kubeconfig,
        '-n',
        hostileNs,
        '--timeout',
        TIMEOUT,
        '--server-endpoint',
        `127.0.0.1:${await closedPort()}`,
        '--snapshot-token-file',
        tokenFile,
      ]);
      const report = expectCase(runsOf, 2, ['CB001', 'CB005', 'CT001', 'IP004', 'OP001', 'SV001']) as ReportDocument;
      expect(report.findings.find((f) => f.code === 'CT001')?.message).toContain('unknown index entries, maxIndexEntries quota 10');
      expect(report.findings.find((f) => f.code === 'CB005')?.message).toContain('\u001b]0;pwned\u0007');
      expect(runsOf.human.stdout).toContain('\\x1b]0;pwned\\x07127.0.0.1:');
      expect(runsOf.human.stdout.split('\n').filter((l) => l.startsWith('Summary:'))).toHaveLength(1);
    });
  });

  describe('exec credential plugins', () => {
    const pluginConfig = (name: string, script: string) => {
      const command = join(dir, `plugin-${name}`);
      writeFileSync(command, `#!/bin/sh\n${script}\n`);
      chmodSync(command, 0o755);
      const ca = readFileSync(inject('caFile')).toString('base64');
      const file = join(dir, `kubeconfig-${name}`);
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'current-context: p',
          'clusters:',
          `- name: c\n  cluster:\n    server: ${inject('server')}\n    certificate-authority-data: ${ca}`,
          'users:',
          `- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${command}\n      interactiveMode: Never`,
          'contexts:',
          '- name: p\n  context:\n    cluster: c\n    user: u',
          '',
        ].join('\n'),
      );
      return file;
    };
    const credential = () =>
      JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: id.token } });

    it('that works: the ordinary report', async () => {
      expectCase(await run(pluginConfig('works', `echo '${credential()}'`), ['--config-only']), 0, ['CB006']);
    });

    it('that fails with a hostile message: API001 naming the plugin, its message shown and not obeyed', async () => {
      const report = expectCase(
        await run(pluginConfig('fails', `printf 'denied \\033[2J\\n' >&2; exit 1`), ['--config-only']),
        2,
        ['API001'],
        ['CB006'],
      );
      expect(report?.findings[0]?.message).toMatch(/the credential plugin ".*plugin-fails" exited with 1: denied /);
      expect(report?.findings[0]?.message).toContain('denied \u001b[2J');
    });

    it('that hangs: killed at the deadline, named, on time', async () => {
      const report = expectCase(await run(pluginConfig('hangs', 'exec sleep 600'), ['--config-only']), 2, ['API001'], ['CB006']);
      expect(report?.findings[0]?.message).toContain('did not finish before the run ended, and was killed');
    });

    it('that takes longer than --timeout: the same, not a false blame of the API server', async () => {
      const report = expectCase(await run(pluginConfig('slow', `sleep 8; echo '${credential()}'`), ['--config-only']), 2, ['API001']);
      expect(report?.findings.every((f) => f.message.includes('credential plugin'))).toBe(true);
    });

    it('that prints garbage holding the token: said, never repeated', async () => {
      const report = expectCase(await run(pluginConfig('garbage', `echo 'your token is ${id.token}'`), ['--config-only']), 2, ['API001']);
      expect(report?.findings[0]?.message).toContain('not an ExecCredential');
    });
  });

  describe('the servers behind --server-endpoint', () => {
    /** A loopback host no other case uses, so that each case has its own :8081. */
    const hosts = new Set<string>();
    const freshHost = () => {
      for (;;) {
        const host = `127.${10 + Math.floor(Math.random() * 200)}.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
        if (!hosts.has(host)) {
          hosts.add(host);
          return host;
        }
      }
    };
    const wired: Record<string, RouteBehaviour> = {
      '/snapshot': { kind: 'answer', status: 200, body: '{"entries":[]}' },
      '/policy': { kind: 'answer', status: 401 },
      '/probe': { kind: 'answer', status: 401 },
    };
    const http8081 = (host: string, routes: Readonly<Record<string, RouteBehaviour>>) => startHttpServer(routes, { host, port: 8081 });

    /** The run against gRPC at `grpc` (host:port) and whatever listens on that host's 8081. */
    const probe = (grpc: string, more: readonly string[]) =>
      run(id.kubeconfig, ['--server-endpoint', grpc, '--snapshot-token-file', tokenFile, ...more], {});

    const withServers = async (
      grpcMode: HealthMode | 'refused' | 'blackhole' | 'tls' | 'tls-h2' | 'garbage',
      routes: Readonly<Record<string, RouteBehaviour>> | 'garbage' | 'none',
      check: (runsOf: Awaited<ReturnType<typeof probe>>, http: TestHttpServer | undefined) => void,
      more: readonly string[] = [],
    ) => {
      const host = freshHost();
      const closers: (() => Promise<void>)[] = [];
      let grpc: string;
      if (grpcMode === 'refused') grpc = `${host}:${await getClosedPort(host)}`;
      else if (grpcMode === 'blackhole') {
        const hole = await startBlackhole(host);
        closers.push(hole.close);
        grpc = hole.address;
      } else if (grpcMode === 'tls' || grpcMode === 'tls-h2' || grpcMode === 'garbage') {
        const server = grpcMode === 'tls' ? tlsServer() : grpcMode === 'tls-h2' ? tlsH2Server() : garbageServer();
        await new Promise<void>((r) => server.listen(0, host, r));
        closers.push(() => new Promise<void>((r) => server.close(() => r())));
        grpc = `${host}:${(server.address() as { port: number }).port}`;
      } else {
        const server = await startGrpcHealthServer(grpcMode, host);
        closers.push(server.close);
        grpc = server.target;
      }
      let http: TestHttpServer | undefined;
      if (routes === 'garbage') {
        const server = garbageServer();
        await new Promise<void>((r) => server.listen(8081, host, r));
        closers.push(() => new Promise<void>((r) => server.close(() => r())));
      } else if (routes !== 'none') {
        http = await http8081(host, routes);
        closers.push(http.close);
      }
      try {
        check(await probe(grpc, more), http);
      } finally {
        for (const close of closers) await close();
      }
    };

    it('gRPC refused: SV001, the HTTP routes still judged', async () => {
      await withServers('refused', wired, (r) => expectCase(r, 2, ['SV001', 'SN004', 'PL002', 'PB002']));
    });
    it('gRPC black-holed: SV001 at the deadline, on time', async () => {
      await withServers('blackhole', wired, (r) => expectCase(r, 2, ['SV001', 'SN004']));
    });
    it('gRPC NOT_SERVING: SV002', async () => {
      await withServers('NOT_SERVING', wired, (r) => expectCase(r, 2, ['SV002']));
    });
    it('gRPC without the health service: SV001 Unimplemented', async () => {
      await withServers('unimplemented', wired, (r) => {
        const report = expectCase(r, 2, ['SV001']);
        expect(report?.findings.find((f) => f.code === 'SV001')?.message).toContain('Unimplemented');
      });
    });
    it('gRPC answering a hostile error: SV001, shown not obeyed', async () => {
      await withServers({ error: 13, details: HOSTILE }, wired, (r) => expectCase(r, 2, ['SV001']));
    });
    it('the gRPC port speaks TLS but only HTTP/1.1: TL010 says it refused ALPN h2, SV001', async () => {
      await withServers('tls', wired, (r) => {
        const report = expectCase(r, 2, ['SV001', 'TL010']);
        expect(report?.findings.find((f) => f.code === 'TL010')?.message).toContain('not HTTP/2');
      });
    });
    it('the gRPC port answers garbage bytes: SV001', async () => {
      await withServers('garbage', wired, (r) => expectCase(r, 2, ['SV001']));
    });
    it(':8081 answers 404 everywhere: SN001, PL001, PB001', async () => {
      await withServers('SERVING', {}, (r) => expectCase(r, 2, ['SV003', 'SN001', 'PL001', 'PB001']));
    });
    it(':8081 answers 500: SN001, PL003, PB003', async () => {
      const failing: RouteBehaviour = { kind: 'answer', status: 500, body: HOSTILE };
      await withServers('SERVING', { '/snapshot': failing, '/policy': failing, '/probe': failing }, (r) =>
        expectCase(r, 2, ['SN001', 'PL003', 'PB003']),
      );
    });
    it(':8081 answers 200 that is not JSON, with hostile bytes: SN002', async () => {
      await withServers('SERVING', { ...wired, '/snapshot': { kind: 'answer', status: 200, body: HOSTILE } }, (r) =>
        expectCase(r, 1, ['SN002']),
      );
    });
    it(':8081 answers 100 MB: SN002 too large, not read to the end', async () => {
      await withServers('SERVING', { ...wired, '/snapshot': { kind: 'huge', bytes: 100 * 1024 * 1024 } }, (r) => {
        const report = expectCase(r, 1, ['SN002']);
        expect(report?.findings.find((f) => f.code === 'SN002')?.message).toContain('larger than the 8 MiB cap');
      });
    });
    it(':8081 answers a gzip bomb: SN002 too large', async () => {
      await withServers('SERVING', { ...wired, '/snapshot': { kind: 'huge', bytes: 64 * 1024 * 1024, gzip: true } }, (r) =>
        expectCase(r, 1, ['SN002']),
      );
    });
    it(':8081 never answers: SN001, PL001, PB001 at the deadline, on time', async () => {
      const hang: RouteBehaviour = { kind: 'hang' };
      await withServers('SERVING', { '/snapshot': hang, '/policy': hang, '/probe': hang }, (r) =>
        expectCase(r, 2, ['SN001', 'PL001', 'PB001']),
      );
    });
    it(':8081 redirects in a loop: SN001 after 10 redirects', async () => {
      await withServers('SERVING', { ...wired, '/snapshot': { kind: 'redirect-loop' } }, (r) => {
        const report = expectCase(r, 2, ['SN001']);
        expect(report?.findings.find((f) => f.code === 'SN001')?.message).toContain('stopped after 10 redirects');
      });
    });
    it(':8081 redirects to another origin: the token withheld, the redirect named, SN004 and SN003', async () => {
      const elsewhere = await startHttpServer({ '/snap': { kind: 'answer', status: 200, body: '{}' } });
      try {
        await withServers(
          'SERVING',
          { ...wired, '/snapshot': { kind: 'redirect', status: 302, location: elsewhere.url('/snap') } },
          (r) => {
            const report = expectCase(r, 0, ['SN004', 'SN003']);
            expect(report?.findings.find((f) => f.code === 'SN004')?.message).toContain(
              `answered by ${elsewhere.url('/snap')}; the token was not sent there`,
            );
          },
        );
        // One request per run (one per output format, and the executable's): none of them carried the token.
        expect(elsewhere.requests.map((q) => q.headers.authorization)).toEqual(Array.from({ length: runsPerCase() }, () => undefined));
      } finally {
        await elsewhere.close();
      }
    });
    it(':8081 resets the connection mid-body: SN002', async () => {
      await withServers('SERVING', { ...wired, '/snapshot': { kind: 'reset-mid-body' } }, (r) => expectCase(r, 1, ['SN002']));
    });
    it(':8081 speaks garbage instead of HTTP: SN001, PL001, PB001', async () => {
      await withServers('SERVING', 'garbage', (r) => expectCase(r, 2, ['SN001', 'PL001', 'PB001']));
    });
    it('nothing on :8081 at all: SN001, PL001, PB001 and a NetworkPolicy verdict', async () => {
      await withServers('SERVING', 'none', (r) => expectCase(r, 2, ['SN001', 'PL001', 'PB001']));
    });

    describe('TLS files that are no regular files: the finding that kind of file has, on time, never a hang', () => {
      it.each([
        ['a FIFO nobody writes', () => operatorFifo],
        ['/dev/zero', () => '/dev/zero'],
      ])('--server-ca-file naming %s: TL001 says so', async (what, file) => {
        await withServers(
          'tls-h2',
          wired,
          (r) => {
            const report = expectCase(r, 2, ['TL001']);
            expect(report?.findings.find((f) => f.code === 'TL001')?.message).toMatch(/not a regular file/);
          },
          ['--server-tls', 'on', '--server-ca-file', file()],
        );
        void what;
      });
      it('--server-cert-file a FIFO and --server-key-file /dev/zero: the gRPC call is not made, SV001 says why', async () => {
        await withServers(
          'tls-h2',
          wired,
          (r) => {
            const report = expectCase(r, 2, ['SV001']);
            expect(report?.findings.find((f) => f.code === 'SV001')?.message).toMatch(/not a regular file/);
          },
          ['--server-tls', 'on', '--server-insecure-skip-verify', '--server-cert-file', operatorFifo, '--server-key-file', '/dev/zero'],
        );
      });
      it('--server-insecure-skip-verify against a TLS port dialled by its IP address: no line from Node on stderr', async () => {
        await withServers('tls-h2', wired, (r) => expectCase(r, 2, ['TL012']), ['--server-tls', 'on', '--server-insecure-skip-verify']);
      });
    });

    it('--snapshot-token-file naming a FIFO nobody writes: probed without a token, a warning, on time', async () => {
      await withServers(
        'SERVING',
        wired,
        (r) => {
          // The route answers 200 to anyone: without a token that is SN003, as upstream has it.
          expectCase(r, 0, ['SV003', 'SN003']);
          expect(r.json.stderr).toMatch(/^warning: could not read --snapshot-token-file ".*" \(it is a FIFO, not a regular file\)/m);
        },
        ['--snapshot-token-file', operatorFifo],
      );
    });
  });

  describe('files an operator names that are no regular files: exit 3 at once, naming the flag and what the file is', () => {
    it.each([
      [
        '--kubeconfig naming a FIFO nobody writes',
        () => ['--kubeconfig', operatorFifo],
        /cannot load kubeconfig ".*" \(from --kubeconfig\): it is a FIFO, not a regular file/,
      ],
      [
        '--kubeconfig naming /dev/zero',
        () => ['--kubeconfig', '/dev/zero'],
        /\(from --kubeconfig\): it is a character device, not a regular file/,
      ],
      [
        '--suppress-file naming a FIFO nobody writes',
        () => ['--kubeconfig', id.kubeconfig, '--suppress-file', operatorFifo],
        /--suppress-file ".*" \(it is a FIFO, not a regular file\)/,
      ],
      [
        '--suppress-file naming /dev/zero',
        () => ['--kubeconfig', id.kubeconfig, '--suppress-file', '/dev/zero'],
        /--suppress-file "\/dev\/zero" \(it is a character device/,
      ],
      [
        '--suppress-file naming a directory',
        () => ['--kubeconfig', id.kubeconfig, '--suppress-file', dir],
        /--suppress-file ".*" \(it is a directory, not a regular file\)/,
      ],
    ])('%s', async (_, args, said) => {
      const runsOf = await runInAllFormats([...args(), '--timeout', TIMEOUT]);
      expectSafe(runsOf, { exitCode: 3, timeoutMs: TIMEOUT_MS, secrets: secrets() });
      expect(runsOf.json.stderr).toMatch(said);
    });
  });

  describe('files for doctor -f that would let a gate pass on what it never judged, or lie', () => {
    const files = join(dir, 'offline');
    const write = (name: string, text: string) => {
      mkdirSync(files, { recursive: true });
      const file = join(files, name);
      writeFileSync(file, text);
      return file;
    };
    const backendDoc = `apiVersion: inferencecache.io/v1alpha1
kind: CacheBackend
metadata: {name: be, namespace: ${ns}, uid: be-uid}
spec: {engineSelector: {matchLabels: {app: engine}}}
status: {conditions: [{type: Ready, status: "True", reason: Ok, message: ok}], matchedEnginePods: 1}
`;
    const dumpOf = (scope: string, body: string) =>
      `# inferencecache dump taken 2026-12-06T00:00:00.000Z by inferencecache 0.1.0 from context "c", ${scope}\n---\n${body}# inferencecache dump complete\n`;
    const pendingPod = (cpu: string) => `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: server-0, namespace: ${ns}, labels: {app.kubernetes.io/name: inference-cache, app.kubernetes.io/component: server}}
  spec: {containers: [{name: s, image: s:1, resources: {requests: {cpu: "${cpu}"}}}]}
  status: {phase: Pending}
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "16"}, conditions: [{type: Ready, status: "True"}]}
`;

    it.each([
      [
        'a plain List that lacks the Kinds a check needs: FI002 WARN, so the gate fails (exit 1, not 0)',
        () => ['-f', write('export.yaml', `apiVersion: v1\nkind: List\nitems:\n- ${backendDoc.replace(/\n(?!$)/g, '\n  ')}`)],
        1,
        ['FI002'],
      ],
      [
        'a pending pod requesting 1e400 CPU (stored by the API server as 10e399): NF001, never a fit',
        () => ['-f', write('huge-cpu.yaml', pendingPod('1e400')), '--covers', 'all'],
        2,
        ['NF001'],
      ],
      [
        'a pending pod requesting a negative amount: NF004, its fit not judged',
        () => ['-f', write('negative-cpu.yaml', pendingPod('-2')), '--covers', 'all'],
        1,
        ['NF004'],
      ],
    ] as const)('%s', async (_, args, exitCode, codes) => {
      const runsOf = await runInAllFormats([...args(), '--timeout', TIMEOUT]);
      const report = expectSafe(runsOf, { exitCode, timeoutMs: TIMEOUT_MS, secrets: secrets(), codes: [...codes], absent: ['NF003'] });
      expect(report?.summary.exitCode).toBe(exitCode);
    });

    it.each([
      [
        'a dump of one namespace judged with -n of another',
        () => ['-f', write('ns-dump.yaml', dumpOf('namespace a', backendDoc.replace(ns, 'a'))), '-n', 'b'],
        /do not cover namespace "b"/,
      ],
      [
        'a dump marked incomplete',
        () => [
          '-f',
          write('cut.yaml', `${dumpOf('all namespaces', backendDoc)}# inferencecache dump incomplete: interrupted by SIGTERM\n`),
        ],
        /is an incomplete dump \(interrupted by SIGTERM\)/,
      ],
      [
        'a YAML dump without its closing line',
        () => ['-f', write('short.yaml', dumpOf('all namespaces', backendDoc).replace('# inferencecache dump complete\n', ''))],
        /is an incomplete dump \(it does not end with the line/,
      ],
      [
        'an object of a Kind the checks read without a name',
        () => ['-f', write('noname.yaml', backendDoc.replace('name: be, ', ''))],
        /\(CacheBackend\) has no name/,
      ],
      [
        'a field the checks read holding the wrong type',
        () => ['-f', write('wrongtype.yaml', backendDoc.replace('spec: {engineSelector: {matchLabels: {app: engine}}}', 'spec: big'))],
        /a field the checks read has the wrong type/,
      ],
      [
        'JSON giving a key twice',
        () => ['-f', write('twice.json', '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b"}}')],
        /gives the key "name" a second time/,
      ],
      [
        '--now on a day that does not exist',
        () => ['-f', write('ok.yaml', backendDoc), '--now', '2026-02-30T00:00:00Z'],
        /invalid --now "2026-02-30T00:00:00Z"/,
      ],
    ])('%s: exit 3, one line saying why', async (_, args, said) => {
      const runsOf = await runInAllFormats([...args(), '--timeout', TIMEOUT]);
      expectSafe(runsOf, { exitCode: 3, timeoutMs: TIMEOUT_MS, secrets: secrets() });
      for (const format of FORMATS) expect(runsOf[format].stderr, format).toMatch(said);
    });
  });

  describe('patterns and annotations that would hold the CPU or flood the report', () => {
    const longNs = uniqueName('long-names');
    beforeAll(async () => {
      await createNamespace(kc, longNs);
      // Thirty backends of 250-character names, each almost matching the glob below.
      for (let i = 0; i < 30; i++) await createBackend(kc, longNs, `${'a'.repeat(245)}-${String(i).padStart(3, '0')}`, {});
      const codes = Array.from({ length: 20_000 }, (_, i) => `ZZ${String(i).padStart(5, '0')}`).join(',');
      await createBackend(kc, longNs, 'flood', {}, undefined, { 'inferencecache.io/doctor-suppress': codes });
    });
    it.each([
      ['--suppress', (glob: string) => ['--suppress', `CB001=${glob}`]],
      [
        '--suppress-file',
        (glob: string) => {
          const file = join(dir, 'backtracking-rules.yaml');
          writeFileSync(file, `suppressions:\n- {code: CB001, resource: "${glob}", reason: tried}\n`);
          return ['--suppress-file', file];
        },
      ],
    ])('a backtracking glob from %s against 250-character names: matched in linear time, on time', async (_, flag) => {
      const runsOf = await runInAllFormats([
        '--kubeconfig',
        id.kubeconfig,
        '-n',
        longNs,
        '--config-only',
        '--timeout',
        TIMEOUT,
        ...flag('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b'),
      ]);
      const report = expectSafe(runsOf, { exitCode: 1, timeoutMs: TIMEOUT_MS, secrets: secrets(), codes: ['CB001', 'SUP001'] });
      expect(report?.findings.filter((f) => f.code === 'CB001')).toHaveLength(31);
    });
    it('one object annotated with 20,000 codes that do not exist: one SUP003, a small report', async () => {
      const runsOf = await runInAllFormats(['--kubeconfig', id.kubeconfig, '-n', longNs, '--config-only', '--timeout', TIMEOUT]);
      const report = expectSafe(runsOf, { exitCode: 1, timeoutMs: TIMEOUT_MS, secrets: secrets(), codes: ['SUP003'] });
      expect(report?.findings.filter((f) => f.code.startsWith('SUP'))).toHaveLength(1);
      expect(runsOf.json.stdout.length).toBeLessThan(100_000);
    });
  });

  describe('usage and configuration errors: one line, exit 3, nothing on stdout', () => {
    it.each([
      ['a namespace that would climb the URL', ['-n', '..']],
      ['a timeout no timer can hold', ['--timeout', '600h']],
      ['a zero timeout', ['--timeout', '0s']],
    ])('%s', async (_, args) => {
      const runsOf = await runInAllFormats(['--kubeconfig', id.kubeconfig, ...args]);
      expectSafe(runsOf, { exitCode: 3, timeoutMs: TIMEOUT_MS, secrets: secrets() });
    });
    it('a kubeconfig that is not YAML, with a hostile line', async () => {
      const bad = join(dir, 'bad-kubeconfig');
      writeFileSync(bad, `clusters: [\n${HOSTILE}`);
      expectSafe(await runInAllFormats(['--kubeconfig', bad]), { exitCode: 3, timeoutMs: TIMEOUT_MS, secrets: secrets() });
    });
  });

  describe('an interrupted run', () => {
    it.each([
      ['the bundle', () => [process.execPath, requireBundle()]],
      ['the single executable', () => [executable]],
    ])('SIGTERM while the API server does not answer: the report so far, incomplete, exit 4 (%s)', async (_, program) => {
      const hole = await startBlackhole();
      try {
        const silent = kubeconfigWithToken(`https://${hole.address}`, inject('caFile'), id.token);
        const [command = '', ...first] = program();
        const child = spawn(command, [...first, 'doctor', '--kubeconfig', silent, '-o', 'table', '--timeout', '60s'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        await expect.poll(() => hole.accepted(), { timeout: 20_000 }).toBeGreaterThan(0);
        child.kill('SIGTERM');
        const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
        expect(code).toBe(4);
        expect(stdout.split('\n')[0]).toMatch(/^STATUS +CODE/);
      } finally {
        await hole.close();
      }
    });
  });

  it('no run of the suite sent a mutating request', () => {
    expect(runs.users.size).toBeGreaterThan(0);
    expect(writesBy(inject('auditLogPath'), runs.users)).toEqual([]);
  });
});

/** A TLS listener where plaintext gRPC is expected (any certificate will do: the client fails before it looks). */
/** A TLS port that speaks HTTP/2 (ALPN h2) but is no gRPC server: its certificate is judged, its health call fails. */
function tlsH2Server(): Http2SecureServer {
  const pki = createServingPki(join(mkdtempSync(join(tmpdir(), 'icd-tls-')), 'pki'), 'tls-h2-not-grpc');
  return createSecureServer({ key: readFileSync(pki.servingKey), cert: readFileSync(pki.servingCert) }, (_req, res) => res.end());
}

function tlsServer(): HttpsServer {
  const pki = createServingPki(join(mkdtempSync(join(tmpdir(), 'icd-tls-')), 'pki'), 'tls-where-plaintext-is-expected');
  return createHttpsServer({ key: readFileSync(pki.servingKey), cert: readFileSync(pki.servingCert) }, (_req, res) => res.end());
}

/** A TCP listener that answers every connection with hostile garbage and hangs up. */
function garbageServer(): TcpServer {
  return createTcpServer((socket: Socket) => {
    socket.on('error', () => undefined);
    // Read (and drop) what the client sends, so that its hang-up is seen and the connection closes.
    socket.resume();
    socket.end(`garbage ${HOSTILE}\r\n\r\n`);
  });
}

/** Waits until the API server stores objects against the permissive schemas. */
async function waitForPermissive(kc: KubeConfig): Promise<void> {
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  for (const name of ['cachebackends.inferencecache.io', 'cachetenants.inferencecache.io']) {
    await pollUntil(`the permissive schema of ${name}`, { timeoutMs: 10_000, intervalMs: 100 }, async () => {
      const crd = await ext.readCustomResourceDefinition({ name });
      // The client's typed model names the field x_kubernetes_preserve_unknown_fields.
      const schema = crd.spec.versions[0]?.schema?.openAPIV3Schema;
      const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
      return (schema?.x_kubernetes_preserve_unknown_fields === true && established) || 'not served yet';
    });
  }
}
