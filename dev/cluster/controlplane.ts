// Local Kubernetes control plane for integration tests: etcd + kube-apiserver
// (+ optional kube-controller-manager) built from Go modules by hack/build-tools.sh.
//
// Erasable TypeScript only (runs under Node 24 type stripping as well as vitest).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { PROJECT_ROOT, cacheRoot } from '../paths.ts';
import { pollUntil } from '../poll.ts';
import { createCa, openssl, signedCert } from './pki/openssl.ts';

export interface ControlPlaneBinaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  helm3: string;
  helm4: string;
  /** Lints .github/workflows in the tests. */
  actionlint: string;
  versions: Record<string, string>;
  /** The version of `kubeApiserver`: KUBERNETES_VERSION, or KUBERNETES_OLDEST_VERSION for the oldest. */
  kubernetesVersion: string;
}

/**
 * Which kube-apiserver a control plane runs: the current one (KUBERNETES_VERSION), or the oldest minor
 * the chart admits (KUBERNETES_OLDEST_VERSION), which the control-plane suites run against too.
 */
export type KubernetesLine = 'current' | 'oldest';

/** Reads hack/versions.env (KEY=VALUE lines). */
export function readPinnedVersions(file = path.join(PROJECT_ROOT, 'hack/versions.env')): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) out[m[1]] = m[2].trim().replace(/^["']|["']$/g, '');
  }
  return out;
}

/**
 * Locates the binaries for the pinned versions, using the same layout as hack/lib.sh:
 * <cache root>/bin/<component>-<version>/ (`cacheRoot` in dev/paths.ts).
 * CONTROLPLANE_BIN_DIR (a dir with etcd, kube-apiserver, kube-controller-manager, helm3, helm4) overrides it.
 */
export function resolveBinaries(env: NodeJS.ProcessEnv = process.env, line: KubernetesLine = 'current'): ControlPlaneBinaries {
  const versions = readPinnedVersions();
  const versionKey = line === 'oldest' ? 'KUBERNETES_OLDEST_VERSION' : 'KUBERNETES_VERSION';
  const kubernetesVersion = versions[versionKey] ?? '';
  const override = env['CONTROLPLANE_BIN_DIR'];
  if (override) {
    return {
      etcd: path.join(override, 'etcd'),
      kubeApiserver: path.join(override, line === 'oldest' ? 'kube-apiserver-oldest' : 'kube-apiserver'),
      kubeControllerManager: path.join(override, 'kube-controller-manager'),
      helm3: path.join(override, 'helm3'),
      helm4: path.join(override, 'helm4'),
      actionlint: path.join(override, 'actionlint'),
      versions,
      kubernetesVersion,
    };
  }
  const cache = cacheRoot(env);
  const bin = (component: string, versionKey: string, name: string): string =>
    path.join(cache, 'bin', `${component}-${versions[versionKey] ?? 'unknown'}`, name);
  return {
    etcd: bin('etcd', 'ETCD_VERSION', 'etcd'),
    kubeApiserver: bin('kube-apiserver', versionKey, 'kube-apiserver'),
    kubeControllerManager: bin('kube-controller-manager', 'KUBERNETES_VERSION', 'kube-controller-manager'),
    helm3: bin('helm', 'HELM3_VERSION', 'helm'),
    helm4: bin('helm', 'HELM4_VERSION', 'helm'),
    actionlint: bin('actionlint', 'ACTIONLINT_VERSION', 'actionlint'),
    versions,
    kubernetesVersion,
  };
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Paths of required binaries that are missing (empty when everything needed is built). */
export function missingBinaries(bins: ControlPlaneBinaries, withControllerManager = false): string[] {
  const need = [bins.etcd, bins.kubeApiserver];
  if (withControllerManager) need.push(bins.kubeControllerManager);
  return need.filter((f) => !isExecutable(f));
}

export interface ControlPlaneOptions {
  /** Also start kube-controller-manager (service-account tokens controller, namespace GC, ...). Default false. */
  startControllerManager?: boolean;
  /** Processes survive the parent (CLI `up`); otherwise they are killed when this process exits. */
  detached?: boolean;
  /** Parent for the temp dir (default os.tmpdir()). */
  baseDir?: string;
  /**
   * etcd's data folder, kept when the control plane stops (default: inside the temp dir, removed with
   * it). Given a folder a previous control plane filled, this one starts with its objects: the scale
   * bench populates its largest scenario once and keeps it.
   */
  etcdDataDir?: string;
  /** Max wait for /readyz (default 60 s). */
  readyTimeoutMs?: number;
  binaries?: ControlPlaneBinaries;
  extraApiServerArgs?: string[];
  extraControllerManagerArgs?: string[];
  /**
   * The address kube-apiserver binds and advertises (default 127.0.0.1). A real node's pods reach the
   * API server through the `kubernetes` Service, whose endpoint must be an address they can route to, so
   * the node mode gives the node's own address; the serving certificate then names it too.
   */
  address?: string;
  /** More users the API server knows by a bearer token: name → groups (the tokens are in the state). */
  users?: Record<string, readonly string[]>;
  log?: (msg: string) => void;
}

export interface ControlPlaneState {
  dir: string;
  kubeconfigPath: string;
  server: string;
  caFile: string;
  adminToken: string;
  /** Bearer tokens of the `users` option, by user name. */
  userTokens: Record<string, string>;
  auditLogPath: string;
  pids: { etcd: number; apiserver: number; controllerManager?: number };
  logs: { etcd: string; apiserver: string; controllerManager?: string };
  kubernetesVersion: string;
}

export interface ControlPlane extends ControlPlaneState {
  stop(): Promise<void>;
}

/** What a running control plane records for `cluster:up` state files: everything but `stop`. */
export function controlPlaneState(cp: ControlPlane): ControlPlaneState {
  const state: Partial<ControlPlane> = { ...cp };
  delete state.stop;
  return state as ControlPlaneState;
}

const ADMIN_USER = 'inferencecache-test-admin';
const LOOPBACK = '127.0.0.1';
const SA_ISSUER = 'https://kubernetes.default.svc';

/** The lowest port of the kernel's ephemeral range (Linux), or undefined where it cannot be read. */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

/** Listens on `port` (0: any) of 127.0.0.1; resolves to the server, or undefined when the port is taken. */
function tryListen(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

/**
 * The ports handed out: below the ephemeral range and below Kubernetes' NodePort range (30000-32767),
 * which kube-proxy programs on the node's addresses.
 */
const FIXED_PORTS_FROM = 20_000;
const FIXED_PORTS_TO = 29_999;

/**
 * Returns n distinct free loopback ports, for programs started next to listen on. They are taken below
 * the kernel's ephemeral range: a port from that range (what listening on port 0 gives) can be taken as
 * the source port of any outgoing connection between this call and the program's own listen, which a
 * busy node (kubelet, containerd, Argo CD) makes many of; a port outside it can only be taken by
 * another listener, which this check would have seen.
 */
export async function freePorts(n: number): Promise<number[]> {
  const highest = Math.min((ephemeralLow() ?? 0) - 1, FIXED_PORTS_TO);
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let attempts = 0; ports.length < n; attempts++) {
      const fixed = highest - FIXED_PORTS_FROM > 1_000 && attempts < 50 * n;
      const candidate = fixed ? FIXED_PORTS_FROM + Math.floor(Math.random() * (highest - FIXED_PORTS_FROM + 1)) : 0;
      if (candidate !== 0 && ports.includes(candidate)) continue;
      const srv = await tryListen(candidate);
      if (srv === undefined) {
        if (candidate === 0) throw new Error('no free loopback port');
        continue;
      }
      servers.push(srv);
      ports.push((srv.address() as net.AddressInfo).port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}

interface Pki {
  caFile: string;
  caKey: string;
  servingCert: string;
  servingKey: string;
  saKey: string;
  saPub: string;
}

/** CA, apiserver serving cert, ServiceAccount RSA key pair, via the openssl CLI. */
function generatePki(dir: string, address: string): Pki {
  const pki = path.join(dir, 'pki');
  fs.mkdirSync(pki, { recursive: true });
  createCa(pki, 'inferencecache-doctor-test-ca');
  const san = [
    ...new Set(['IP:127.0.0.1', `IP:${address}`]),
    'IP:10.96.0.1',
    'DNS:localhost',
    'DNS:kubernetes',
    'DNS:kubernetes.default',
    'DNS:kubernetes.default.svc',
    'DNS:kubernetes.default.svc.cluster.local',
  ].join(',');
  signedCert(
    pki,
    'apiserver',
    '/CN=kube-apiserver',
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
  );
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], pki);
  openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], pki);
  return {
    caFile: path.join(pki, 'ca.crt'),
    caKey: path.join(pki, 'ca.key'),
    servingCert: path.join(pki, 'apiserver.crt'),
    servingKey: path.join(pki, 'apiserver.key'),
    saKey: path.join(pki, 'sa.key'),
    saPub: path.join(pki, 'sa.pub'),
  };
}

export function writeKubeconfig(file: string, server: string, caFile: string, user: string, token: string): void {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server, 'certificate-authority': caFile } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'local', context: { cluster: 'local', user, namespace: 'default' } }],
    'current-context': 'local',
  };
  fs.writeFileSync(file, toYaml(doc), { mode: 0o600 });
}

export function spawnLogged(bin: string, args: string[], logFile: string, detached: boolean, env?: NodeJS.ProcessEnv): number {
  const fd = fs.openSync(logFile, 'a');
  try {
    // Always its own process group, so stop() can kill the whole group.
    const child = spawn(bin, args, { detached: true, stdio: ['ignore', fd, fd], ...(env === undefined ? {} : { env }) });
    if (child.pid === undefined) throw new Error(`failed to start ${bin}`);
    child.on('error', () => undefined);
    if (detached) child.unref();
    return child.pid;
  } finally {
    fs.closeSync(fd);
  }
}

export function isAlive(pid: number): boolean {
  // 0 and negative numbers name process groups, not a process.
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Stops a process group: SIGTERM, up to `graceMs` for it to exit, then SIGKILL and up to `hardMs` more.
 */
export async function terminate(pid: number, graceMs: number, hardMs: number): Promise<void> {
  killGroup(pid, 'SIGTERM');
  for (const deadline = Date.now() + graceMs; isAlive(pid) && Date.now() < deadline;) await sleep(50);
  if (!isAlive(pid)) return;
  killGroup(pid, 'SIGKILL');
  for (const hard = Date.now() + hardMs; isAlive(pid) && Date.now() < hard;) await sleep(50);
}

/** Kills the processes of a (possibly foreign) control plane and removes its dir unless KEEP_CP=1. */
export async function stopControlPlane(
  state: Pick<ControlPlaneState, 'dir' | 'pids'>,
  keep = process.env['KEEP_CP'] === '1',
): Promise<void> {
  // reverse start order, one at a time, so the apiserver can still reach etcd while it shuts down
  const pids = [state.pids.controllerManager, state.pids.apiserver, state.pids.etcd].filter(
    (p): p is number => typeof p === 'number' && p > 0,
  );
  for (const pid of pids) await terminate(pid, 5_000, 2_000);
  if (!keep) fs.rmSync(state.dir, { recursive: true, force: true });
}

interface HttpResult {
  status: number;
  body: string;
  /** The body as it came, for an answer that is not text (protobuf). */
  bytes: Buffer;
  contentType: string;
}

/**
 * One request to the API server with a bearer token, the body sent as JSON. `accept` asks for another
 * encoding (the API server's protobuf); the answer is given as text and as bytes.
 */
export function apiRequest(
  server: string,
  caFile: string,
  token: string,
  method: string,
  urlPath: string,
  body?: unknown,
  options: { readonly accept?: string; readonly timeoutMs?: number } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      new URL(urlPath, server),
      {
        method,
        ca: fs.readFileSync(caFile),
        headers: {
          authorization: `Bearer ${token}`,
          accept: options.accept ?? 'application/json',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        timeout: options.timeoutMs ?? 5_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            body: bytes.toString('utf8'),
            bytes,
            contentType: String(res.headers['content-type'] ?? ''),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Waits until `probe` answers true while the process `pid` lives; the last lines of its log are in the
 * error when it dies or the time runs out.
 */
export async function waitFor(what: string, timeoutMs: number, pid: number, logFile: string, probe: () => Promise<boolean>): Promise<void> {
  try {
    await pollUntil(
      what,
      { timeoutMs, intervalMs: 250, stopIf: () => (isAlive(pid) ? undefined : 'exited during startup') },
      async () => (await probe()) || 'not ready',
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last log lines of ${logFile}:\n${tail(logFile)}`, { cause: err });
  }
}

/** GET url, true on 200. For https the server certificate is not verified (loopback health probes only). */
export function httpGetOk(url: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onRes = (res: http.IncomingMessage) => {
      res.resume();
      resolve(res.statusCode === 200);
    };
    const req = url.startsWith('https:')
      ? https.get(url, { timeout: 2_000, rejectUnauthorized: false }, onRes)
      : http.get(url, { timeout: 2_000 }, onRes);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
`;

/** Starts etcd + kube-apiserver (+ optional kube-controller-manager) on free loopback ports. */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const log = opts.log ?? (() => undefined);
  const bins = opts.binaries ?? resolveBinaries();
  const withKcm = opts.startControllerManager === true;
  // The controller manager is built at KUBERNETES_VERSION, and may not be newer than the API server.
  if (withKcm && bins.kubernetesVersion !== bins.versions['KUBERNETES_VERSION'])
    throw new Error(
      `kube-controller-manager ${bins.versions['KUBERNETES_VERSION'] ?? ''} cannot run beside kube-apiserver ${bins.kubernetesVersion}`,
    );
  const missing = missingBinaries(bins, withKcm);
  if (missing.length > 0) {
    throw new Error(`control-plane binaries missing (${missing.join(', ')}); run hack/build-tools.sh`);
  }
  const detached = opts.detached === true;
  const readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
  const address = opts.address ?? LOOPBACK;

  const dir = fs.mkdtempSync(path.join(opts.baseDir ?? os.tmpdir(), 'inferencecache-cp-'));
  const [etcdClientPort, etcdPeerPort, apiPort, kcmPort] = (await freePorts(4)) as [number, number, number, number];
  const pids: ControlPlaneState['pids'] = { etcd: 0, apiserver: 0 };
  const logs: ControlPlaneState['logs'] = { etcd: path.join(dir, 'etcd.log'), apiserver: path.join(dir, 'kube-apiserver.log') };

  let exitHook: (() => void) | undefined;
  const cleanupOnFailure = async () => {
    if (exitHook) process.off('exit', exitHook);
    await stopControlPlane({ dir, pids });
  };

  try {
    const pki = generatePki(dir, address);
    const adminToken = randomBytes(24).toString('hex');
    const kcmToken = randomBytes(24).toString('hex');
    const users = opts.users ?? {};
    const userTokens = Object.fromEntries(Object.keys(users).map((user) => [user, randomBytes(24).toString('hex')]));
    const tokenFile = path.join(dir, 'tokens.csv');
    fs.writeFileSync(
      tokenFile,
      `${adminToken},${ADMIN_USER},${ADMIN_USER},"system:masters"\n` +
        `${kcmToken},system:kube-controller-manager,system:kube-controller-manager,"system:masters"\n` +
        Object.entries(userTokens)
          .map(([user, token]) => `${token},${user},${user},"${users[user]?.join(',') ?? ''}"\n`)
          .join(''),
      { mode: 0o600 },
    );
    const auditPolicy = path.join(dir, 'audit-policy.yaml');
    fs.writeFileSync(auditPolicy, AUDIT_POLICY);
    const auditLogPath = path.join(dir, 'audit.log');

    if (!detached) {
      // best effort: never leave orphans behind when the test runner exits without teardown
      exitHook = () => {
        for (const pid of [pids.controllerManager, pids.apiserver, pids.etcd]) if (pid) killGroup(pid, 'SIGKILL');
      };
      process.on('exit', exitHook);
    }

    // --- etcd
    const etcdClient = `http://127.0.0.1:${etcdClientPort}`;
    const etcdPeer = `http://127.0.0.1:${etcdPeerPort}`;
    log(`starting etcd on ${etcdClient}`);
    pids.etcd = spawnLogged(
      bins.etcd,
      [
        '--name=default',
        `--data-dir=${opts.etcdDataDir ?? path.join(dir, 'etcd-data')}`,
        `--listen-client-urls=${etcdClient}`,
        `--advertise-client-urls=${etcdClient}`,
        `--listen-peer-urls=${etcdPeer}`,
        `--initial-advertise-peer-urls=${etcdPeer}`,
        `--initial-cluster=default=${etcdPeer}`,
        '--initial-cluster-state=new',
        '--unsafe-no-fsync=true',
        '--log-level=warn',
      ],
      logs.etcd,
      detached,
    );
    await waitFor('etcd', readyTimeoutMs, pids.etcd, logs.etcd, () => httpGetOk(`${etcdClient}/health`));

    // --- kube-apiserver
    const server = `https://${address}:${apiPort}`;
    log(`starting kube-apiserver on ${server}`);
    pids.apiserver = spawnLogged(
      bins.kubeApiserver,
      [
        `--etcd-servers=${etcdClient}`,
        `--bind-address=${address}`,
        `--advertise-address=${address}`,
        `--secure-port=${apiPort}`,
        `--cert-dir=${path.join(dir, 'apiserver-certs')}`,
        `--tls-cert-file=${pki.servingCert}`,
        `--tls-private-key-file=${pki.servingKey}`,
        `--client-ca-file=${pki.caFile}`,
        `--token-auth-file=${tokenFile}`,
        '--authorization-mode=Node,RBAC',
        '--enable-admission-plugins=PodSecurity',
        `--service-account-issuer=${SA_ISSUER}`,
        `--service-account-key-file=${pki.saPub}`,
        `--service-account-signing-key-file=${pki.saKey}`,
        `--api-audiences=${SA_ISSUER}`,
        `--audit-log-path=${auditLogPath}`,
        `--audit-policy-file=${auditPolicy}`,
        '--audit-log-mode=blocking',
        '--service-cluster-ip-range=10.96.0.0/16',
        '--allow-privileged=true',
        '--enable-priority-and-fairness=false',
        // the lease reconciler publishes the advertised address in the `kubernetes` Service's endpoints,
        // which validation rejects for 127.0.0.1
        `--endpoint-reconciler-type=${address === LOOPBACK ? 'none' : 'lease'}`,
        '--profiling=false',
        ...(opts.extraApiServerArgs ?? []),
      ],
      logs.apiserver,
      detached,
    );
    await waitFor('kube-apiserver', readyTimeoutMs, pids.apiserver, logs.apiserver, async () => {
      const r = await apiRequest(server, pki.caFile, adminToken, 'GET', '/readyz');
      return r.status === 200;
    });

    // default namespace (normally created by the apiserver's system-namespaces controller)
    const ns = await apiRequest(server, pki.caFile, adminToken, 'GET', '/api/v1/namespaces/default');
    if (ns.status === 404) {
      const created = await apiRequest(server, pki.caFile, adminToken, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'default' },
      });
      if (created.status !== 201 && created.status !== 409)
        throw new Error(`creating namespace default: ${created.status} ${created.body}`);
    }

    const kubeconfigPath = path.join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfigPath, server, pki.caFile, ADMIN_USER, adminToken);

    // --- kube-controller-manager (optional)
    if (withKcm) {
      const kcmKubeconfig = path.join(dir, 'kube-controller-manager.kubeconfig');
      writeKubeconfig(kcmKubeconfig, server, pki.caFile, 'system:kube-controller-manager', kcmToken);
      logs.controllerManager = path.join(dir, 'kube-controller-manager.log');
      log(`starting kube-controller-manager (secure port ${kcmPort})`);
      pids.controllerManager = spawnLogged(
        bins.kubeControllerManager,
        [
          `--kubeconfig=${kcmKubeconfig}`,
          `--authentication-kubeconfig=${kcmKubeconfig}`,
          `--authorization-kubeconfig=${kcmKubeconfig}`,
          '--bind-address=127.0.0.1',
          `--secure-port=${kcmPort}`,
          `--cert-dir=${path.join(dir, 'kcm-certs')}`,
          '--controllers=*',
          `--service-account-private-key-file=${pki.saKey}`,
          `--root-ca-file=${pki.caFile}`,
          '--use-service-account-credentials=false',
          '--leader-elect=false',
          '--service-cluster-ip-range=10.96.0.0/16',
          '--profiling=false',
          ...(opts.extraControllerManagerArgs ?? []),
        ],
        logs.controllerManager,
        detached,
      );
      const kcmLog = logs.controllerManager;
      await waitFor('kube-controller-manager', readyTimeoutMs, pids.controllerManager, kcmLog, () =>
        httpGetOk(`https://127.0.0.1:${kcmPort}/healthz`),
      );
    }

    const state: ControlPlaneState = {
      dir,
      kubeconfigPath,
      server,
      caFile: pki.caFile,
      adminToken,
      userTokens,
      auditLogPath,
      pids: { ...pids },
      logs: { ...logs },
      kubernetesVersion: bins.kubernetesVersion,
    };
    let stopped = false;
    return {
      ...state,
      async stop() {
        if (stopped) return;
        stopped = true;
        if (exitHook) process.off('exit', exitHook);
        await stopControlPlane(state);
      },
    };
  } catch (err) {
    await cleanupOnFailure();
    throw err;
  }
}
