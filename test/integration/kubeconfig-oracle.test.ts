// kubectl is the oracle for kubeconfigs: for each kubeconfig below, `kubectl get --raw /api` (kubectl
// built here) and the doctor reach the same outcome (authenticated, 401, 403, a TLS verification
// failure, unreachable, or refused by the client before any request), and where the API server saw
// them, it saw the same identity: user, groups and impersonation, from its audit log.
import { execFile } from 'node:child_process';
import { copyFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePorts } from '../../dev/cluster/controlplane.ts';
import { doctorIdentity, requestToken } from '../../dev/cluster/identity.ts';
import { applyObjects, createNamespace } from '../../dev/cluster/manifests.ts';
import { nodeBinaries } from '../../dev/cluster/node/node.ts';
import { createCa, signedCert } from '../../dev/cluster/pki/openssl.ts';
import { runBundle } from '../support/bundle.ts';
import { startConnectProxy, type ConnectProxy } from '../support/connect-proxy.ts';
import type { JsonReport } from '../support/json-report.ts';

const adminKubeconfig = inject('kubeconfig');
const server = inject('server');
const caFile = inject('caFile');
const auditLogPath = inject('auditLogPath');
const kubectl = nodeBinaries().kubectl;
const skipReason =
  adminKubeconfig === ''
    ? ` (skipped: ${inject('controlPlaneSkipReason')})`
    : existsSync(kubectl)
      ? ''
      : ` (skipped: kubectl is not built at ${kubectl}; run npm run tools:build)`;
if (skipReason !== '' && adminKubeconfig !== '' && process.env['CI'] === 'true') throw new Error(`kubeconfig oracle${skipReason}`);

const NS = 'kc-oracle';
const CERT_USER = 'oracle-cert';
const IMPERSONATED = 'oracle-imp';

/** How a client's attempt ended. */
type Outcome = 'authenticated' | '401' | '403' | 'tls' | 'unreachable' | 'client-error';

/** What the audit log says of one request, as far as identity goes. */
interface AuditLine {
  readonly stage: string;
  readonly userAgent?: string;
  readonly user: { readonly username: string; readonly groups?: readonly string[] };
  readonly impersonatedUser?: {
    readonly username?: string;
    readonly uid?: string;
    readonly groups?: readonly string[];
    readonly extra?: Readonly<Record<string, readonly string[]>>;
  };
}

/** One identity as the API server saw it, comparable as a string. */
function identityOf(line: AuditLine): string {
  const sorted = (list: readonly string[] | undefined) => [...(list ?? [])].sort();
  const as = line.impersonatedUser;
  return JSON.stringify({
    user: line.user.username,
    groups: sorted(line.user.groups),
    ...(as === undefined ? {} : { as: { user: as.username, uid: as.uid, groups: sorted(as.groups), extra: as.extra } }),
  });
}

const auditLines = (): string[] => readFileSync(auditLogPath, 'utf8').split('\n');

/** How kubectl's attempt ended, from its exit and its error. */
function kubectlOutcome(code: number | null, stderr: string): Outcome {
  if (code === 0) return 'authenticated';
  if (/Unauthorized/.test(stderr)) return '401';
  if (/forbidden/i.test(stderr)) return '403';
  if (/x509|certificate|tls:/i.test(stderr)) return 'tls';
  if (/refused/i.test(stderr)) return 'unreachable';
  return 'client-error';
}

/** How the doctor's attempt ended, from its exit and the API001 findings of its report. */
function doctorOutcome(code: number | null, stdout: string): Outcome {
  if (code === 3 || !stdout.startsWith('{')) return 'client-error';
  const messages = (JSON.parse(stdout) as JsonReport).findings.filter((f) => f.code === 'API001').map((f) => f.message);
  const any = (pattern: RegExp) => messages.some((m) => pattern.test(m));
  if (any(/credential plugin/)) return 'client-error';
  if (any(/Unauthorized|HTTP 401/)) return '401';
  if (any(/forbidden|HTTP 403/i)) return '403';
  if (any(/certificate|self.signed|altnames|TLS/i)) return 'tls';
  if (any(/ECONNREFUSED|connection refused|connect/i)) return 'unreachable';
  return 'authenticated';
}

/** Where a case's kubeconfig is: one file (`--kubeconfig`), or several in `$KUBECONFIG`; and the folder both run in. */
interface Given {
  readonly file?: string;
  readonly KUBECONFIG?: string;
  readonly cwd?: string;
}

interface Case {
  readonly name: string;
  readonly given: () => Given;
  readonly outcome: Outcome;
  /** The user the API server must have seen (its name, or the impersonated one's). */
  readonly as?: string;
  /** Text both clients' errors must carry. */
  readonly says?: string;
  /** Both must have gone through the proxy. */
  readonly viaProxy?: boolean;
}

let dir = '';
let tokenA = '';
let tokenB = '';
let userA = '';
let userB = '';
let proxy: ConnectProxy | undefined;
let closedPort = 0;
let certDir = '';
let otherCaFile = '';
let adminToken = '';

/** A kubeconfig file in a folder of its own: `cluster` and `user` are the YAML lines under each. */
function kubeconfigFile(
  cluster: readonly string[],
  user: readonly string[],
  extra: { context?: readonly string[]; name?: string } = {},
): string {
  const folder = mkdtempSync(join(dir, 'case-'));
  const file = join(folder, extra.name ?? 'config');
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'current-context: oracle',
    'clusters:',
    '- name: oracle',
    '  cluster:',
    ...cluster.map((l) => `    ${l}`),
    'users:',
    '- name: oracle',
    '  user:',
    ...user.map((l) => `    ${l}`),
    'contexts:',
    '- name: oracle',
    '  context:',
    '    cluster: oracle',
    '    user: oracle',
    ...(extra.context ?? []).map((l) => `    ${l}`),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const ca = () => `certificate-authority-data: ${readFileSync(caFile).toString('base64')}`;
const trusted = () => [`server: ${server}`, ca()];

/** A file holding `text`, in the suite's folder. */
function written(name: string, text: string): string {
  const file = join(mkdtempSync(join(dir, 'file-')), name);
  writeFileSync(file, text);
  return file;
}

/** An exec plugin that checks what kubectl gives it (an env var, the cluster when asked for) and prints A's token. */
function plugin(checkClusterInfo: boolean): string {
  const script = [
    '#!/bin/sh',
    '[ "$ORACLE_ENV" = yes ] || { echo "the env of the exec config is missing" >&2; exit 1; }',
    ...(checkClusterInfo
      ? [`case "$KUBERNETES_EXEC_INFO" in *'"server":"${server}"'*) ;; *) echo "no cluster info" >&2; exit 1;; esac`]
      : []),
    `printf '%s\\n' '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${tokenA}"}}'`,
  ].join('\n');
  const file = written('plugin.sh', `${script}\n`);
  chmodSync(file, 0o755);
  return file;
}

const exec = (command: string, more: readonly string[]) => [
  'exec:',
  '  apiVersion: client.authentication.k8s.io/v1',
  `  command: ${command}`,
  '  env: [{name: ORACLE_ENV, value: "yes"}]',
  ...more.map((l) => `  ${l}`),
];

const CASES: readonly Case[] = [
  { name: 'token', given: () => ({ file: kubeconfigFile(trusted(), [`token: ${tokenA}`]) }), outcome: 'authenticated', as: 'A' },
  {
    name: 'tokenFile',
    given: () => ({ file: kubeconfigFile(trusted(), [`tokenFile: ${written('token', `${tokenB}\n`)}`]) }),
    outcome: 'authenticated',
    as: 'B',
  },
  {
    name: 'token and tokenFile: the file wins',
    given: () => ({ file: kubeconfigFile(trusted(), [`token: ${tokenA}`, `tokenFile: ${written('token', tokenB)}`]) }),
    outcome: 'authenticated',
    as: 'B',
  },
  {
    name: 'token-file (no kubeconfig field for kubectl) beside token: the token',
    given: () => ({ file: kubeconfigFile(trusted(), [`token: ${tokenA}`, `token-file: ${written('token', tokenB)}`]) }),
    outcome: 'authenticated',
    as: 'A',
  },
  {
    name: 'client-certificate and client-key files, relative to the kubeconfig',
    given: () => {
      const file = kubeconfigFile(trusted(), ['client-certificate: oracle.crt', 'client-key: oracle.key']);
      copyFileSync(join(certDir, 'oracle.crt'), join(dirname(file), 'oracle.crt'));
      copyFileSync(join(certDir, 'oracle.key'), join(dirname(file), 'oracle.key'));
      return { file };
    },
    outcome: 'authenticated',
    as: CERT_USER,
  },
  {
    name: 'client-certificate-data and client-key-data',
    given: () => ({
      file: kubeconfigFile(trusted(), [
        `client-certificate-data: ${readFileSync(join(certDir, 'oracle.crt')).toString('base64')}`,
        `client-key-data: ${readFileSync(join(certDir, 'oracle.key')).toString('base64')}`,
      ]),
    }),
    outcome: 'authenticated',
    as: CERT_USER,
  },
  {
    name: 'certificate-authority as a file, relative to the kubeconfig, run from elsewhere',
    given: () => {
      const file = kubeconfigFile([`server: ${server}`, 'certificate-authority: ca.crt'], [`token: ${tokenA}`]);
      copyFileSync(caFile, join(dirname(file), 'ca.crt'));
      return { file, cwd: dir };
    },
    outcome: 'authenticated',
    as: 'A',
  },
  {
    name: 'insecure-skip-tls-verify without a CA',
    given: () => ({ file: kubeconfigFile([`server: ${server}`, 'insecure-skip-tls-verify: true'], [`token: ${tokenA}`]) }),
    outcome: 'authenticated',
    as: 'A',
  },
  {
    name: 'a CA that did not sign the server: verification fails',
    given: () => ({ file: kubeconfigFile([`server: ${server}`, `certificate-authority: ${otherCaFile}`], [`token: ${tokenA}`]) }),
    outcome: 'tls',
  },
  {
    name: 'tls-server-name the certificate names',
    given: () => ({ file: kubeconfigFile([...trusted(), 'tls-server-name: kubernetes.default'], [`token: ${tokenA}`]) }),
    outcome: 'authenticated',
    as: 'A',
  },
  {
    name: 'tls-server-name the certificate does not name: verification fails',
    given: () => ({ file: kubeconfigFile([...trusted(), 'tls-server-name: wrong.example'], [`token: ${tokenA}`]) }),
    outcome: 'tls',
  },
  {
    name: 'proxy-url: a real HTTP CONNECT proxy',
    given: () => ({ file: kubeconfigFile([...trusted(), `proxy-url: ${proxy?.url ?? ''}`], [`token: ${tokenA}`]) }),
    outcome: 'authenticated',
    as: 'A',
    viaProxy: true,
  },
  {
    name: 'impersonation: as, as-groups, as-uid, as-user-extra',
    given: () => ({
      file: kubeconfigFile(trusted(), [
        `token: ${adminToken}`,
        `as: ${IMPERSONATED}`,
        'as-uid: "4711"',
        'as-groups: [oracle-g1, oracle-g2]',
        'as-user-extra: {"oracle.example.com/tier": [gold, silver]}',
      ]),
    }),
    outcome: 'authenticated',
    as: IMPERSONATED,
  },
  {
    name: 'impersonation by an identity that may not impersonate: 403',
    given: () => ({ file: kubeconfigFile(trusted(), [`token: ${tokenA}`, `as: ${IMPERSONATED}`]) }),
    outcome: '403',
  },
  {
    name: 'a token the API server does not know: 401',
    given: () => ({ file: kubeconfigFile(trusted(), ['token: not-a-token']) }),
    outcome: '401',
  },
  {
    name: 'nothing listens at the server address',
    given: () => ({ file: kubeconfigFile([`server: https://127.0.0.1:${closedPort}`, ca()], [`token: ${tokenA}`]) }),
    outcome: 'unreachable',
  },
  {
    name: 'an exec plugin with env, provideClusterInfo and interactiveMode Never',
    given: () => ({ file: kubeconfigFile(trusted(), exec(plugin(true), ['provideClusterInfo: true', 'interactiveMode: Never'])) }),
    outcome: 'authenticated',
    as: 'A',
  },
  {
    name: 'an exec plugin with interactiveMode IfAvailable (no terminal: it runs without one)',
    given: () => ({ file: kubeconfigFile(trusted(), exec(plugin(false), ['interactiveMode: IfAvailable'])) }),
    outcome: 'authenticated',
    as: 'A',
  },
  {
    name: 'an exec plugin with interactiveMode Always, and no terminal: refused',
    given: () => ({ file: kubeconfigFile(trusted(), exec(plugin(false), ['interactiveMode: Always'])) }),
    outcome: 'client-error',
  },
  {
    name: 'an exec plugin of client.authentication.k8s.io/v1 without interactiveMode: refused',
    given: () => ({ file: kubeconfigFile(trusted(), exec(plugin(false), [])) }),
    outcome: 'client-error',
  },
  {
    name: 'an exec plugin whose command is on no PATH: its installHint said',
    given: () => ({
      file: kubeconfigFile(
        trusted(),
        exec('oracle-login-not-installed', ['interactiveMode: Never', 'installHint: install oracle-login from the oracle']),
      ),
    }),
    outcome: 'client-error',
    says: 'install oracle-login from the oracle',
  },
  {
    name: 'several files in KUBECONFIG: the first one wins, per key; a missing one is skipped',
    given: () => {
      const first = kubeconfigFile(trusted(), [`token: ${tokenA}`]);
      const second = kubeconfigFile(trusted(), [`token: ${tokenB}`]);
      return { KUBECONFIG: [join(dir, 'no-such-kubeconfig'), first, second].join(':') };
    },
    outcome: 'authenticated',
    as: 'A',
  },
];

/** Runs kubectl and the doctor with one kubeconfig and returns what each did and what the API server saw. */
async function attempt(given: Given) {
  const env = { PATH: process.env['PATH'] ?? '', HOME: dir, ...(given.KUBECONFIG === undefined ? {} : { KUBECONFIG: given.KUBECONFIG }) };
  const flag = given.file === undefined ? [] : [`--kubeconfig=${given.file}`];
  const cwd = given.cwd ?? tmpdir();
  const before = auditLines().length;
  const k = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(kubectl, [...flag, 'get', '--raw', '/api', '--request-timeout=10s'], { env, cwd, timeout: 30_000 }, (err, _stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stderr }),
    );
  });
  const d = await runBundle(['doctor', ...flag, '--config-only', '-o', 'json', '--timeout', '10s', '-n', NS], { env, cwd });
  const seen = auditLines()
    .slice(before - 1)
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditLine)
    .filter((e) => e.stage === 'ResponseComplete')
    .filter((e) => [userA, userB, CERT_USER].includes(e.user.username) || e.impersonatedUser?.username === IMPERSONATED);
  const by = (kubectlSide: boolean) =>
    [...new Set(seen.filter((e) => (e.userAgent ?? '').startsWith('kubectl/') === kubectlSide).map(identityOf))].sort();
  return {
    kubectl: { outcome: kubectlOutcome(k.code, k.stderr), stderr: k.stderr, identities: by(true) },
    doctor: { outcome: doctorOutcome(d.code, d.stdout), output: `${d.stdout}${d.stderr}`, identities: by(false) },
  };
}

describe.skipIf(skipReason !== '')(`kubectl is the oracle for kubeconfigs${skipReason}`, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'icd-kc-oracle-'));
    const kc = new KubeConfig();
    kc.loadFromFile(adminKubeconfig);
    adminToken = kc.getCurrentUser()?.token ?? '';
    await createNamespace(kc, NS);
    const a = await doctorIdentity(kc, { namespace: NS, name: 'oracle-a', server, caFile });
    const b = await doctorIdentity(kc, { namespace: NS, name: 'oracle-b', server, caFile });
    [tokenA, tokenB, userA, userB] = [a.token, b.token, a.username, b.username];
    // The client certificate's user and the impersonated one read what A reads.
    await applyObjects(kc, [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'icd-kc-oracle-people' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `icd-${NS}-oracle-a` },
        subjects: [
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: CERT_USER },
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: IMPERSONATED },
        ],
      },
    ]);
    certDir = mkdtempSync(join(dir, 'pki-'));
    copyFileSync(caFile, join(certDir, 'ca.crt'));
    copyFileSync(join(dirname(caFile), 'ca.key'), join(certDir, 'ca.key'));
    signedCert(
      certDir,
      'oracle',
      `/CN=${CERT_USER}/O=oracle-group`,
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
    );
    const otherDir = mkdtempSync(join(dir, 'other-ca-'));
    createCa(otherDir, 'not-the-cluster-ca');
    otherCaFile = join(otherDir, 'ca.crt');
    proxy = await startConnectProxy();
    [closedPort] = (await freePorts(1)) as [number];
    // A fresh token for B, so that its file differs from anything A's kubeconfig holds.
    tokenB = await requestToken(kc, NS, 'oracle-b');
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
  });

  it.each(CASES)('$name', async ({ given, outcome, as, says, viaProxy }) => {
    const tunnelsBefore = proxy?.tunnels() ?? 0;
    const { kubectl: k, doctor: d } = await attempt(given());
    expect({ kubectl: k.outcome, doctor: d.outcome }, `kubectl said: ${k.stderr}\ndoctor said: ${d.output.slice(0, 2000)}`).toEqual({
      kubectl: outcome,
      doctor: outcome,
    });
    if (outcome === 'authenticated' || outcome === '403') {
      expect(d.identities).toEqual(k.identities);
      expect(k.identities).toHaveLength(1);
    }
    if (as !== undefined) {
      const user = as === 'A' ? userA : as === 'B' ? userB : as;
      expect(k.identities.join(''), 'the identity the API server saw').toContain(JSON.stringify(user));
    }
    if (says !== undefined) {
      expect(k.stderr).toContain(says);
      expect(d.output).toContain(says);
    }
    if (viaProxy === true) expect((proxy?.tunnels() ?? 0) - tunnelsBefore, 'tunnels through the proxy').toBeGreaterThanOrEqual(2);
  });

  it("a context's namespace does not narrow the doctor: it judges every namespace unless -n says otherwise", async () => {
    const file = kubeconfigFile(trusted(), [`token: ${tokenA}`], { context: [`namespace: ${NS}`] });
    const before = auditLines().length;
    const run = await runBundle(['doctor', `--kubeconfig=${file}`, '--config-only', '-o', 'json'], {
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(run.code).not.toBe(3);
    const uris = auditLines()
      .slice(before - 1)
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as AuditLine & { requestURI: string })
      .filter((e) => e.stage === 'ResponseComplete' && e.user.username === userA)
      .map((e) => e.requestURI);
    expect(uris.some((u) => u.startsWith('/api/v1/pods'))).toBe(true);
    expect(uris.filter((u) => u.includes(`/namespaces/${NS}/`))).toEqual([]);
  });
});
