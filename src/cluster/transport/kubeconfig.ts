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
 * The `tokenFile` of each user, by user name, as the kubeconfig files name them (absolute): the field
 * kubectl reads (client-go's `tokenFile`; the client library reads `token-file`, which kubectl does
 * not). The doctor reads only the one of the user it runs as, through the bounded reader.
 */
type TokenFiles = Map<string, string>;

/**
 * What a kubeconfig user asks to be impersonated as (`as`, `as-uid`, `as-groups`, `as-user-extra`), sent
 * as kubectl sends it: one `Impersonate-*` header each (a group or an extra value per header).
 */
export interface Impersonation {
  readonly user?: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/** The impersonation of each loaded kubeconfig's current user, kept beside the client library's object. */
const IMPERSONATIONS = new WeakMap<KubeConfig, Impersonation>();

/** What the kubeconfig's current user asks to be impersonated as, or undefined. */
export function impersonationOf(kc: KubeConfig): Impersonation | undefined {
  return IMPERSONATIONS.get(kc);
}

/** The characters a header name may hold as they are; client-go percent-encodes every other byte of an extra's key. */
const HEADER_NAME_SAFE = /^[A-Za-z0-9!#$&'*+.^_|~-]$/;

/** The `Impersonate-*` headers of an impersonation, as client-go writes them. */
export function impersonationHeaders(who: Impersonation | undefined): [string, string][] {
  if (who === undefined) return [];
  const out: [string, string][] = [];
  if (who.user !== undefined) out.push(['Impersonate-User', who.user]);
  if (who.uid !== undefined) out.push(['Impersonate-Uid', who.uid]);
  for (const group of who.groups) out.push(['Impersonate-Group', group]);
  for (const [key, values] of Object.entries(who.extra)) {
    const escaped = [...Buffer.from(key, 'utf8')]
      .map((b) => {
        const c = String.fromCharCode(b);
        return b < 0x80 && HEADER_NAME_SAFE.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join('');
    for (const value of values) out.push([`Impersonate-Extra-${escaped}`, value]);
  }
  return out;
}

/** A user's impersonation fields, or undefined when it asks for none. */
function impersonationIn(body: Readonly<Record<string, unknown>>): Impersonation | undefined {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const user = text(body['as']);
  const uid = text(body['as-uid']);
  const groups = strings(body['as-groups']);
  const extra = Object.fromEntries(Object.entries(obj(body['as-user-extra']) ?? {}).map(([k, v]) => [k, strings(v)]));
  if (user === undefined && uid === undefined && groups.length === 0 && Object.keys(extra).length === 0) return undefined;
  return { ...(user === undefined ? {} : { user }), ...(uid === undefined ? {} : { uid }), groups, extra };
}

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

/** One kubeconfig file as read: its parsed document (paths made absolute), or none when it holds nothing. */
type KubeconfigDocument = Record<string, unknown> | undefined;

/**
 * One kubeconfig file, read through the bounded reader and parsed, with the paths it names made
 * absolute against its own folder (as kubectl resolves them), and its users' `tokenFile`s taken out
 * (see {@link TokenFiles}). Undefined for a file of `$KUBECONFIG` that does not exist: kubectl skips it.
 */
async function readKubeconfig(
  file: string,
  origin: Origin,
  tokenFiles: TokenFiles,
  signal: AbortSignal | undefined,
): Promise<KubeconfigDocument> {
  const read = await readOperatorFile(file, 'kubeconfig', signal);
  if (!read.ok && read.missing && origin === '$KUBECONFIG') return undefined;
  if (!read.ok) throw new KubeConfigError(`cannot load ${kubeconfigNamed(file, origin)}: ${read.reason}`);
  let doc: unknown;
  try {
    doc = parse(read.bytes.toString('utf8'));
  } catch (err) {
    throw new KubeConfigError(`cannot load ${kubeconfigNamed(file, origin)}: ${describeError(err)}`);
  }
  const config = obj(doc) as Record<string, unknown> | undefined;
  if (config === undefined) return undefined;
  const here = dirname(file);
  const absolute = (body: Record<string, unknown>, key: string) => {
    const value = body[key];
    if (typeof value === 'string' && value !== '') body[key] = resolve(here, value);
  };
  for (const { body } of entries(config, 'clusters', 'cluster')) absolute(body, 'certificate-authority');
  for (const { name, body } of entries(config, 'users', 'user')) {
    absolute(body, 'client-certificate');
    absolute(body, 'client-key');
    const tokenFile = body['tokenFile'];
    // kubectl reads tokenFile and nothing else; the client library's token-file is no kubeconfig field.
    delete body['tokenFile'];
    delete body['token-file'];
    if (typeof name === 'string' && typeof tokenFile === 'string' && tokenFile !== '' && !tokenFiles.has(name)) {
      tokenFiles.set(name, resolve(here, tokenFile));
    }
  }
  return config;
}

/**
 * Several kubeconfig documents merged as kubectl merges `$KUBECONFIG`: the first file to set the
 * current context sets it, and of the clusters, users and contexts of one name the first one counts.
 */
function merged(documents: readonly Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: 'v1', kind: 'Config', clusters: [], users: [], contexts: [] };
  for (const doc of documents) {
    const context = doc['current-context'];
    if (out['current-context'] === undefined && typeof context === 'string' && context !== '') out['current-context'] = context;
    for (const list of ['clusters', 'users', 'contexts']) {
      const into = out[list] as unknown[];
      const names = new Set(into.map((item) => obj(item)?.['name']));
      for (const item of Array.isArray(doc[list]) ? (doc[list] as unknown[]) : []) {
        const name = obj(item)?.['name'];
        if (names.has(name)) continue;
        names.add(name);
        into.push(item);
      }
    }
  }
  return out;
}

/** Reads and merges the kubeconfig files, loads the result into `kc`, and returns it as merged. */
async function loadFiles(
  kc: KubeConfig,
  files: readonly string[],
  origin: Origin,
  tokenFiles: TokenFiles,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  const documents: Record<string, unknown>[] = [];
  for (const file of files) {
    const doc = await readKubeconfig(file, origin, tokenFiles, signal);
    if (doc !== undefined) documents.push(doc);
  }
  const config = merged(documents);
  try {
    kc.loadFromString(JSON.stringify(config));
  } catch (err) {
    const named = files.length === 1 ? kubeconfigNamed(files[0] ?? '', origin) : `the kubeconfig files of ${origin ?? 'the default path'}`;
    throw new KubeConfigError(`cannot load ${named}: ${describeError(err)}`);
  }
  return config;
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
  const token = await tokenOf(user, tokenFiles.get(user.name), signal);
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

/**
 * The bearer token of a user with a `tokenFile`, as kubectl settles it: the file's token, trimmed, wins
 * over a `token` (client-go re-reads the file and prefers what it holds); a file that cannot be read,
 * or holds only space, leaves the `token` when there is one, and is an error when there is not.
 */
async function tokenOf(user: User, tokenFile: string | undefined, signal: AbortSignal | undefined): Promise<string | undefined> {
  if (tokenFile === undefined) return undefined;
  const hasToken = user.token !== undefined && user.token !== '';
  const read = await readOperatorFile(tokenFile, 'kubeconfig-file', signal);
  const fromFile = read.ok ? goTrimSpace(read.bytes.toString('utf8')) : '';
  if (fromFile !== '') return fromFile;
  if (hasToken) return undefined;
  const why = read.ok ? 'it holds no token' : read.reason;
  throw new KubeConfigError(`cannot load the token file of the kubeconfig ${JSON.stringify(tokenFile)}: ${why}`);
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
  let config: Record<string, unknown> | undefined;
  const fromEnv = (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (flags.kubeconfig !== '') {
    config = await loadFiles(kc, [flags.kubeconfig], '--kubeconfig', tokenFiles, signal);
  } else if (fromEnv.length > 0) {
    config = await loadFiles(kc, fromEnv, '$KUBECONFIG', tokenFiles, signal);
  } else {
    const home = homeConfig(env);
    if (home !== undefined) {
      config = await loadFiles(kc, [home], undefined, tokenFiles, signal);
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
    const ctx = kc.getCurrentContext() as string | null | undefined;
    throw new KubeConfigError(
      ctx === null || ctx === undefined || ctx === ''
        ? 'the kubeconfig sets no current context; pass --context'
        : `context ${JSON.stringify(ctx)} names no usable cluster`,
    );
  }
  await inlineCurrentFiles(kc, tokenFiles, signal);
  const who = impersonationIn(currentUserBody(config, kc));
  if (who !== undefined) IMPERSONATIONS.set(kc, who);
  // The client library would send Impersonate-User from `as` on its own; the transport sends them all.
  kc.users = kc.users.map((u) => {
    const { impersonateUser: _sentByTheTransport, ...rest } = u;
    return rest;
  });
  return kc;
}

/** The `user` mapping of the kubeconfig's current user, as the files wrote it. */
function currentUserBody(config: Record<string, unknown> | undefined, kc: KubeConfig): Readonly<Record<string, unknown>> {
  const name = kc.getCurrentUser()?.name;
  if (config === undefined || name === undefined) return {};
  return entries(config, 'users', 'user').find((u) => u.name === name)?.body ?? {};
}
