import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { KubeConfig, type Cluster, type User } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { exists, readOperatorFile, type OperatorFileKind } from '../../files/operator-file.ts';
import { goTrimSpace } from '../../go/strings.ts';
import { describeError } from '../../text/errors.ts';
import { KubeConfigError } from './kubeconfig-error.ts';
import { obj } from '../encoding/wire.ts';

export { KubeConfigError } from './kubeconfig-error.ts';

/** The environment the loader looks at, passed in so that nothing reads `process` here. */
export interface KubeEnv {
  readonly KUBECONFIG?: string | undefined;
  readonly HOME?: string | undefined;
  readonly KUBERNETES_SERVICE_HOST?: string | undefined;
  readonly KUBERNETES_SERVICE_PORT?: string | undefined;
}

/**
 * The `token-file` of each user, by user name, as the kubeconfig files name them (absolute). The client
 * library would read every user's at once, blocking, whichever context is used; the doctor reads only
 * the one of the user it runs as, through the bounded reader.
 */
type TokenFiles = Map<string, string>;

/**
 * Where a kubeconfig file came from, as its error names it: the flag or the variable that named it, or
 * nothing for the default path, which names itself.
 */
type Origin = '--kubeconfig' | '$KUBECONFIG' | undefined;

/** `kubeconfig "<file>"`, and where it came from. */
function kubeconfigNamed(file: string, origin: Origin): string {
  return `kubeconfig ${JSON.stringify(file)}${origin === undefined ? '' : ` (from ${origin})`}`;
}

/** Reads one file of a run's files through the bounded reader, or says which and why it cannot. */
async function readOrFail(file: string, kind: OperatorFileKind, what: string, signal: AbortSignal | undefined): Promise<Buffer> {
  const read = await readOperatorFile(file, kind, signal);
  if (!read.ok) throw new KubeConfigError(`cannot load ${what} ${JSON.stringify(file)}: ${read.reason}`);
  return read.bytes;
}

/** A kubeconfig's entries of one list (`clusters`, `users`), each as its inner object (`cluster`, `user`). */
function entries(doc: Record<string, unknown>, list: string, inner: string): { name: unknown; body: Record<string, unknown> }[] {
  const items = doc[list];
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown) => {
    const body = obj(obj(item)?.[inner]);
    return body === undefined ? [] : [{ name: obj(item)?.['name'], body }];
  });
}

/**
 * One kubeconfig file, read through the bounded reader: its text for the client library, with the
 * paths it names made absolute against its own folder (as kubectl resolves them), and its users'
 * `token-file`s taken out (see {@link TokenFiles}).
 */
async function readKubeconfig(file: string, origin: Origin, tokenFiles: TokenFiles, signal: AbortSignal | undefined): Promise<string> {
  const read = await readOperatorFile(file, 'kubeconfig', signal);
  if (!read.ok) throw new KubeConfigError(`cannot load ${kubeconfigNamed(file, origin)}: ${read.reason}`);
  const text = read.bytes.toString('utf8');
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new KubeConfigError(`cannot load ${kubeconfigNamed(file, origin)}: ${describeError(err)}`);
  }
  const config = obj(doc);
  if (config === undefined) return text;
  const here = dirname(file);
  const absolute = (body: Record<string, unknown>, key: string) => {
    const value = body[key];
    if (typeof value === 'string' && value !== '') body[key] = resolve(here, value);
  };
  for (const { body } of entries(config, 'clusters', 'cluster')) absolute(body, 'certificate-authority');
  for (const { name, body } of entries(config, 'users', 'user')) {
    absolute(body, 'client-certificate');
    absolute(body, 'client-key');
    const tokenFile = body['token-file'];
    delete body['token-file'];
    if (typeof name === 'string' && typeof tokenFile === 'string' && tokenFile !== '' && !tokenFiles.has(name)) {
      tokenFiles.set(name, resolve(here, tokenFile));
    }
  }
  return JSON.stringify(config);
}

async function loadFiles(
  kc: KubeConfig,
  files: readonly string[],
  origin: Origin,
  tokenFiles: TokenFiles,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const [i, file] of files.entries()) {
    const text = await readKubeconfig(file, origin, tokenFiles, signal);
    try {
      if (i === 0) {
        kc.loadFromString(text);
      } else {
        const more = new KubeConfig();
        more.loadFromString(text);
        kc.mergeConfig(more);
      }
    } catch (err) {
      throw new KubeConfigError(`cannot load ${kubeconfigNamed(file, origin)}: ${describeError(err)}`);
    }
  }
}

/**
 * Reads the files the current cluster and user name (the CA, the client certificate and key, the
 * token file) through the bounded reader, and hands them to the client library as data: it would read
 * them itself with a blocking read, on every request, where a FIFO or a device would hang the run.
 */
async function inlineCurrentFiles(kc: KubeConfig, tokenFiles: TokenFiles, signal: AbortSignal | undefined): Promise<void> {
  const cluster = kc.getCurrentCluster();
  if (cluster?.caFile !== undefined && cluster.caFile !== '') {
    const caData = (await readOrFail(cluster.caFile, 'kubeconfig-file', 'the certificate authority of the kubeconfig', signal)).toString(
      'base64',
    );
    const { caFile: _ca, ...rest } = cluster;
    const inlined: Cluster = { ...rest, caData };
    kc.clusters = kc.clusters.map((c) => (c === cluster ? inlined : c));
  }
  const user = kc.getCurrentUser();
  if (user === null) return;
  const certData =
    user.certFile === undefined || user.certFile === ''
      ? undefined
      : (await readOrFail(user.certFile, 'kubeconfig-file', 'the client certificate of the kubeconfig', signal)).toString('base64');
  const keyData =
    user.keyFile === undefined || user.keyFile === ''
      ? undefined
      : (await readOrFail(user.keyFile, 'kubeconfig-file', 'the client key of the kubeconfig', signal)).toString('base64');
  const tokenFile = tokenFiles.get(user.name);
  const token =
    tokenFile === undefined || (user.token !== undefined && user.token !== '')
      ? undefined
      : goTrimSpace((await readOrFail(tokenFile, 'kubeconfig-file', 'the token file of the kubeconfig', signal)).toString('utf8'));
  if (certData === undefined && keyData === undefined && token === undefined) return;
  const { certFile: _cert, keyFile: _key, ...rest } = user;
  const inlined: User = {
    ...rest,
    ...(certData === undefined ? {} : { certData }),
    ...(keyData === undefined ? {} : { keyData }),
    ...(token === undefined ? {} : { token }),
  };
  kc.users = kc.users.map((u) => (u === user ? inlined : u));
}

function homeConfig(env: KubeEnv): string | undefined {
  const home = env.HOME ?? safeHomedir();
  if (home === undefined || home === '') return undefined;
  const file = join(home, '.kube', 'config');
  return exists(file) ? file : undefined;
}

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

/**
 * The in-cluster configuration: the API address from the Service environment variables, the
 * ServiceAccount token (re-read as the kubelet rotates it) and the cluster CA. Both files are checked
 * with the bounded reader first (the token is then re-read by the client library, which only a regular
 * file lets do without blocking).
 */
async function loadInCluster(kc: KubeConfig, env: KubeEnv, serviceAccountDir: string, signal: AbortSignal | undefined): Promise<void> {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  const tokenFile = join(serviceAccountDir, 'token');
  await readOrFail(tokenFile, 'token', 'the ServiceAccount token', signal);
  const caData = (await readOrFail(join(serviceAccountDir, 'ca.crt'), 'kubeconfig-file', 'the ServiceAccount CA', signal)).toString(
    'base64',
  );
  kc.loadFromClusterAndUser(
    { name: 'in-cluster', server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`, caData, skipTLSVerify: false },
    { name: 'in-cluster', authProvider: { name: 'tokenFile', config: { tokenFile } } },
  );
}

/**
 * Loads the kubeconfig the way kubectl does: `--kubeconfig`, else `$KUBECONFIG` (merged), else
 * `~/.kube/config`; the in-cluster ServiceAccount (token and CA in `serviceAccountDir`, the pod's
 * `/var/run/secrets/kubernetes.io/serviceaccount`) is the fallback only when neither `--kubeconfig` nor
 * `--context` was given. An unknown `--context` is an error, not a silent default. Every file is read
 * through the bounded reader (`files/operator-file.ts`), under `signal`: the kubeconfigs, and the files
 * the chosen cluster and user name.
 *
 * @throws KubeConfigError naming the file and why, when there is no usable configuration.
 */
export async function loadKubeConfig(
  flags: { kubeconfig: string; context: string },
  env: KubeEnv,
  serviceAccountDir: string,
  signal?: AbortSignal,
): Promise<KubeConfig> {
  const kc = new KubeConfig();
  const tokenFiles: TokenFiles = new Map();
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (flags.kubeconfig !== '') {
    await loadFiles(kc, [flags.kubeconfig], '--kubeconfig', tokenFiles, signal);
  } else if (fromEnv.length > 0) {
    await loadFiles(kc, fromEnv, '$KUBECONFIG', tokenFiles, signal);
  } else {
    const home = homeConfig(env);
    if (home !== undefined) {
      await loadFiles(kc, [home], undefined, tokenFiles, signal);
    } else if (flags.context === '' && (env.KUBERNETES_SERVICE_HOST ?? '') !== '') {
      const token = join(serviceAccountDir, 'token');
      if (!exists(token)) throw new KubeConfigError(`running in a pod but no ServiceAccount token is mounted at ${token}`);
      await loadInCluster(kc, env, serviceAccountDir, signal);
    } else {
      throw new KubeConfigError('no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config');
    }
  }
  if (flags.context !== '') {
    if (kc.getContextObject(flags.context) === null) {
      throw new KubeConfigError(`context ${JSON.stringify(flags.context)} is not in the kubeconfig`);
    }
    kc.setCurrentContext(flags.context);
  }
  const cluster = kc.getCurrentCluster();
  if (cluster === null || cluster.server === '') {
    const ctx = kc.getCurrentContext() as string | null;
    throw new KubeConfigError(
      ctx === null || ctx === ''
        ? 'the kubeconfig sets no current context; pass --context'
        : `context ${JSON.stringify(ctx)} names no usable cluster`,
    );
  }
  await inlineCurrentFiles(kc, tokenFiles, signal);
  return kc;
}
