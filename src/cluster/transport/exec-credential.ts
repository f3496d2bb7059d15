/**
 * Exec credential plugins (a kubeconfig `user.exec`, as cloud providers' `kubelogin`s are), run by the
 * doctor itself instead of by client-node, whose runner has no deadline: a plugin that hangs would hold
 * the run forever, and one that takes longer than `--timeout` would make every finding blame the API
 * server. Here the plugin runs once per run (every read waits for the same run), is killed when the
 * run's deadline passes (the run does not wait for it to go), and every failure names it. It stays in
 * the doctor's process group, so that a Ctrl-C reaches whatever it started too. Nothing it prints is
 * ever repeated: its output may hold the credentials.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { KubeConfig, type Cluster, type User } from '@kubernetes/client-node';
import { describeError } from '../../text/errors.ts';
import { obj, str } from '../encoding/wire.ts';

/** The most output a plugin may print; an ExecCredential is a few kilobytes. */
const MAX_OUTPUT_BYTES = 1024 * 1024;

/** What a plugin gave: a kubeconfig that authenticates with it, or why it did not. */
export type PluginCredential = { readonly ok: true; readonly kubeConfig: KubeConfig } | { readonly ok: false; readonly error: string };

/** The `exec` section of a kubeconfig user, as far as the doctor reads it. */
interface ExecConfig {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly apiVersion: string;
  /** Whether the plugin is told the cluster (`spec.cluster` of `KUBERNETES_EXEC_INFO`), as kubectl tells it. */
  readonly provideClusterInfo: boolean;
  /** `Never`, `IfAvailable` or `Always`; the doctor never has a terminal to offer. */
  readonly interactiveMode: string;
  /** What the kubeconfig says to do when the command is not installed. */
  readonly installHint: string;
}

function execConfigOf(user: User): ExecConfig | undefined {
  const raw = obj(user.exec) ?? obj(obj(obj(user.authProvider)?.['config'])?.['exec']);
  if (raw === undefined) return undefined;
  const args = Array.isArray(raw['args']) ? raw['args'].filter((a): a is string => typeof a === 'string') : [];
  const env: Record<string, string> = {};
  for (const entry of Array.isArray(raw['env']) ? raw['env'] : []) {
    const e = obj(entry);
    if (typeof e?.['name'] === 'string' && typeof e['value'] === 'string') env[e['name']] = e['value'];
  }
  return {
    command: str(raw['command']),
    args,
    env,
    apiVersion: str(raw['apiVersion']),
    provideClusterInfo: raw['provideClusterInfo'] === true,
    interactiveMode: str(raw['interactiveMode']),
    installHint: str(raw['installHint']),
  };
}

/** The API versions whose plugins may leave `interactiveMode` out (it then means `IfAvailable`), as in kubectl. */
const LEGACY_VERSIONS = ['client.authentication.k8s.io/v1beta1', 'client.authentication.k8s.io/v1alpha1'];

/**
 * Why kubectl would refuse this plugin's configuration, or run it only with a terminal the doctor never
 * has; undefined when it runs. Refused as kubectl refuses: no `apiVersion`, an `interactiveMode` missing
 * (outside the legacy versions) or unknown, or `Always`, which needs a terminal.
 */
function refusal(config: ExecConfig): string | undefined {
  if (config.apiVersion === '') return 'has no apiVersion, which kubectl requires';
  const mode = config.interactiveMode === '' && LEGACY_VERSIONS.includes(config.apiVersion) ? 'IfAvailable' : config.interactiveMode;
  if (mode === '') return `has no interactiveMode, which ${config.apiVersion} requires (kubectl refuses it too)`;
  if (!['Never', 'IfAvailable', 'Always'].includes(mode)) return `has an interactiveMode kubectl does not know: ${JSON.stringify(mode)}`;
  if (mode === 'Always') return 'asks for a terminal (interactiveMode Always), which the doctor never offers';
  return undefined;
}

/** The plugin as messages name it: its command, quoted. */
function nameOf(config: ExecConfig): string {
  return `the credential plugin ${JSON.stringify(config.command)}`;
}

type Outcome =
  | { readonly kind: 'exited'; readonly code: number | null; readonly stdout: string; readonly stderr: string }
  | { readonly kind: 'failed'; readonly error: string };

/** Runs the plugin to its end, or kills it when `signal` aborts and stops waiting for it. */
/**
 * What kubectl tells a plugin of the cluster when `provideClusterInfo` is set: its address, TLS server
 * name, whether verification is off, its CA, its proxy. (The cluster's `exec` extension, which
 * kubectl passes as `config`, is not kept by the client library, so it is not passed.)
 */
function clusterInfo(cluster: Cluster): Record<string, unknown> {
  return {
    server: cluster.server,
    ...(cluster.tlsServerName === undefined || cluster.tlsServerName === '' ? {} : { 'tls-server-name': cluster.tlsServerName }),
    ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(cluster.caData === undefined || cluster.caData === '' ? {} : { 'certificate-authority-data': cluster.caData }),
    ...(cluster.proxyUrl === undefined || cluster.proxyUrl === '' ? {} : { 'proxy-url': cluster.proxyUrl }),
  };
}

function runPlugin(
  config: ExecConfig,
  cluster: Cluster,
  baseEnv: Readonly<Record<string, string | undefined>>,
  signal: AbortSignal,
): Promise<Outcome> {
  const spec = { interactive: false, ...(config.provideClusterInfo ? { cluster: clusterInfo(cluster) } : {}) };
  const execInfo = JSON.stringify({ apiVersion: config.apiVersion, kind: 'ExecCredential', spec });
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve({ kind: 'failed', error: 'the run ended before it was started' });
      return;
    }
    const child = spawn(config.command, [...config.args], {
      env: { ...baseEnv, ...config.env, KUBERNETES_EXEC_INFO: execInfo },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    // Something the plugin started may keep its pipes open after it is killed: stop reading them.
    const stop = (error: string) => {
      child.kill('SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
      finish({ kind: 'failed', error });
    };
    const collect = (into: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (stdout.length + stderr.length + chunk.length > MAX_OUTPUT_BYTES)
        stop(`printed more than ${MAX_OUTPUT_BYTES} bytes and was killed`);
      else if (into === 'stdout') stdout += chunk.toString('utf8');
      else stderr += chunk.toString('utf8');
    };
    const onAbort = () => stop('did not finish before the run ended, and was killed');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', collect('stdout'));
    child.stderr.on('data', collect('stderr'));
    child.once('error', (err: NodeJS.ErrnoException) => {
      const hint = err.code === 'ENOENT' && config.installHint !== '' ? `; ${config.installHint.trim()}` : '';
      finish({ kind: 'failed', error: `could not be started: ${describeError(err)}${hint}` });
    });
    child.once('close', (code) => finish({ kind: 'exited', code, stdout, stderr }));
  });
}

/** A kubeconfig for the same cluster that presents the credential the plugin printed. */
function credentialOf(stdout: string, cluster: Cluster, userName: string): { kubeConfig: KubeConfig; expires?: number } | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return 'printed something that is not an ExecCredential (not JSON)';
  }
  const status = obj(obj(parsed)?.['status']);
  const token = str(status?.['token']);
  const certData = str(status?.['clientCertificateData']);
  const keyData = str(status?.['clientKeyData']);
  if (token === '' && (certData === '' || keyData === ''))
    return 'printed an ExecCredential with neither status.token nor a client certificate and key';
  const user: User = token !== '' ? { name: userName, token } : { name: userName, certData, keyData };
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(cluster, user);
  const expires = Date.parse(str(status?.['expirationTimestamp']));
  return Number.isNaN(expires) ? { kubeConfig } : { kubeConfig, expires };
}

/** The plugin of the current user of a kubeconfig, run at most once at a time, its credential kept until it expires. */
export class ExecCredentialPlugin {
  readonly #config: ExecConfig;
  readonly #cluster: Cluster;
  readonly #userName: string;
  readonly #env: Readonly<Record<string, string | undefined>>;
  /** The run of the plugin whose credential (or failure) stands; a new run only once a credential expires. */
  #current: Promise<{ result: PluginCredential; expires?: number }> | undefined;

  private constructor(config: ExecConfig, cluster: Cluster, userName: string, env: Readonly<Record<string, string | undefined>>) {
    this.#config = config;
    this.#cluster = cluster;
    this.#userName = userName;
    this.#env = env;
  }

  /** The plugin of `kc`'s current user, or undefined when that user has none. `env` is the plugin's environment. */
  static of(kc: KubeConfig, env: Readonly<Record<string, string | undefined>>): ExecCredentialPlugin | undefined {
    const user = kc.getCurrentUser();
    const cluster = kc.getCurrentCluster();
    const config = user === null ? undefined : execConfigOf(user);
    if (user === null || cluster === null || config === undefined) return undefined;
    return new ExecCredentialPlugin(config, cluster, user.name, env);
  }

  /**
   * The credential: every caller waits for the same run of the plugin. A failure stands for the rest
   * of the doctor's run (running a broken plugin again for every read helps no one); a credential
   * stands until it expires.
   */
  async credential(signal: AbortSignal): Promise<PluginCredential> {
    const standing = this.#current;
    if (standing !== undefined) {
      const { result, expires } = await standing;
      if (expires === undefined || expires > Date.now()) return result;
      // Expired: the first caller to notice starts the next run; the others wait for that one.
      if (this.#current === standing) this.#current = undefined;
    }
    this.#current ??= this.#fetch(signal);
    return (await this.#current).result;
  }

  async #fetch(signal: AbortSignal): Promise<{ result: PluginCredential; expires?: number }> {
    const name = nameOf(this.#config);
    if (this.#config.command === '') return { result: { ok: false, error: `${name} has no command` } };
    const refused = refusal(this.#config);
    if (refused !== undefined) return { result: { ok: false, error: `${name} ${refused}` } };
    const outcome = await runPlugin(this.#config, this.#cluster, this.#env, signal);
    if (outcome.kind === 'failed') return { result: { ok: false, error: `${name} ${outcome.error}` } };
    if (outcome.code !== 0) {
      const said = outcome.stderr.trim().split('\n')[0] ?? '';
      return { result: { ok: false, error: `${name} exited with ${outcome.code ?? 'a signal'}${said === '' ? '' : `: ${said}`}` } };
    }
    const credential = credentialOf(outcome.stdout, this.#cluster, this.#userName);
    if (typeof credential === 'string') return { result: { ok: false, error: `${name} ${credential}` } };
    return {
      result: { ok: true, kubeConfig: credential.kubeConfig },
      ...(credential.expires === undefined ? {} : { expires: credential.expires }),
    };
  }
}
