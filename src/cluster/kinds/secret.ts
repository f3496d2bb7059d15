/**
 * The pull secrets the install's pods name: read by name only, each projected on arrival to its type
 * and the shape of its credentials, its content dropped; written to a dump as a stand-in without a
 * credential, which `doctor -f` projects to exactly what the live run projected the real one to.
 *
 * @module
 */

import { obj, str } from '../encoding/wire.ts';
import { CORE } from './access.ts';
import { REDACTED, withoutUrlCredentials } from './dump-policy.ts';
import { defineKind } from './kind.ts';

/**
 * What the doctor learnt about one referenced pull secret, without keeping any of its content: only
 * its type and the shape of the credentials document.
 */
export type PullSecretLookup =
  | { readonly kind: 'found'; readonly type: string; readonly content: PullSecretContent }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'unknown'; readonly status?: number | undefined; readonly error: string };

/**
 * The shape of a pull secret's credentials document, judged against the key its type defines
 * (`.dockerconfigjson` for `kubernetes.io/dockerconfigjson`, `.dockercfg` for the legacy
 * `kubernetes.io/dockercfg`). `registries` counts the entries; the entries themselves are dropped.
 */
export type PullSecretContent =
  | { readonly kind: 'no-key'; readonly key: string }
  | { readonly kind: 'not-json'; readonly key: string }
  | { readonly kind: 'not-object'; readonly key: string }
  | { readonly kind: 'no-auths'; readonly key: string }
  | { readonly kind: 'credentials'; readonly key: string; readonly registries: number }
  /** The type defines no credentials key (e.g. `Opaque`), so the document was not looked at. */
  | { readonly kind: 'not-applicable' };

/**
 * The annotation `inferencecache dump` puts on a Secret it could not read (other than not found): the
 * status and error of that read, so that `doctor -f` says what the live run said.
 */
export const DUMP_READ_ERROR_ANNOTATION = 'inferencecache.io/dump-read-error';

/** The Secret types the kubelet takes registry credentials from, and the data key each one uses. */
export const PULL_SECRET_KEYS: Readonly<Record<string, string>> = {
  'kubernetes.io/dockerconfigjson': '.dockerconfigjson',
  'kubernetes.io/dockercfg': '.dockercfg',
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Judges the shape of the credentials document of a pull secret. `.dockerconfigjson` must hold an
 * object with an `auths` object; the legacy `.dockercfg` is itself the map of registries (it has no
 * `auths` wrapper), so any JSON object passes there.
 */
function contentOf(type: string, data: Readonly<Record<string, unknown>> | undefined): PullSecretContent {
  const key = PULL_SECRET_KEYS[type];
  if (key === undefined) return { kind: 'not-applicable' };
  const encoded = data?.[key];
  if (typeof encoded !== 'string' || encoded === '') return { kind: 'no-key', key };
  if (!BASE64.test(encoded)) return { kind: 'not-json', key };
  const parsed = parseJson(Buffer.from(encoded, 'base64').toString('utf8'));
  if (!parsed.ok) return { kind: 'not-json', key };
  const document = obj(parsed.value);
  if (document === undefined) return { kind: 'not-object', key };
  if (key === '.dockercfg') return { kind: 'credentials', key, registries: Object.keys(document).length };
  const auths = obj(document['auths']);
  if (auths === undefined) return { kind: 'no-auths', key };
  return { kind: 'credentials', key, registries: Object.keys(auths).length };
}

/**
 * Projects a Secret read by name to its type and the shape of its credentials. The content itself is
 * dropped here, the moment it arrives: nothing after this point can print it.
 */
export function projectPullSecret(raw: unknown): PullSecretLookup {
  const secret = obj(raw);
  const type = str(secret?.['type']) || 'Opaque';
  return { kind: 'found', type, content: contentOf(type, obj(secret?.['data'])) };
}

/** The credential fields of a registry entry of a Docker config. */
const CREDENTIAL_FIELDS = ['auth', 'password', 'identitytoken', 'registrytoken'] as const;

/** Whether a registry entry carries a credential. */
function hasCredentials(entry: unknown): boolean {
  const fields = obj(entry);
  return CREDENTIAL_FIELDS.some((field) => str(fields?.[field]) !== '');
}

/**
 * A registry key as a dump may write it: the kubelet also matches keys that are URLs, and one may carry
 * credentials (`https://user:password@host/v2/`) or a token in its query; both are left out.
 */
export function registryKeyWithoutCredentials(key: string): string {
  const noQuery = key.replace(/[?#][\s\S]*$/, '');
  const noUrlUserinfo = withoutUrlCredentials(noQuery);
  // Without a scheme: everything before the last `@` ahead of the first `/` is userinfo.
  return noUrlUserinfo.includes('://') ? noUrlUserinfo : noUrlUserinfo.replace(/^[^/]*@/, `${REDACTED}@`);
}

/**
 * The registries of a credentials document, each with a stand-in for its credentials, or none. Two
 * keys that differ only in what is left out stay two entries (a suffix keeps them apart), so that the
 * count the checks read is the real one.
 */
function redactedRegistries(registries: Readonly<Record<string, unknown>>): Record<string, { auth?: string }> {
  const out: Record<string, { auth?: string }> = {};
  for (const [host, entry] of Object.entries(registries)) {
    const base = registryKeyWithoutCredentials(host);
    let key = base;
    for (let n = 2; key in out; n++) key = `${base}#${n}`;
    out[key] = hasCredentials(entry) ? { auth: REDACTED } : {};
  }
  return out;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function decoded(encoded: unknown): Readonly<Record<string, unknown>> | undefined {
  try {
    return obj(JSON.parse(Buffer.from(str(encoded), 'base64').toString('utf8')));
  } catch {
    return undefined;
  }
}

/** The redacted `data` value of the credentials key, given what the real one was found to be. */
function redactedDocument(raw: Readonly<Record<string, unknown>> | undefined, key: string, kind: string): string | undefined {
  switch (kind) {
    case 'no-key':
      return undefined;
    case 'not-json':
      return base64('not JSON: the content is left out of the dump');
    case 'not-object':
      return base64('"the content is left out of the dump"');
    case 'no-auths':
      return base64('{}');
    default: {
      const document = decoded(raw?.[key]) ?? {};
      const registries = key === '.dockercfg' ? document : (obj(document['auths']) ?? {});
      const redacted = redactedRegistries(registries);
      return base64(JSON.stringify(key === '.dockercfg' ? redacted : { auths: redacted }));
    }
  }
}

/**
 * The dump's stand-in for a Secret read by name (`raw` as the API server gave it): its namespace, name
 * and type, and a credentials document of the same shape holding no credential: for each registry
 * entry, its host and `"auth": "REDACTED"` when it had credentials, nothing when it had none.
 */
export function dumpedSecret(raw: unknown): Record<string, unknown> {
  const secret = obj(raw);
  const metadata = obj(secret?.['metadata']);
  const lookup = projectPullSecret(raw);
  const type = lookup.kind === 'found' ? lookup.type : 'Opaque';
  const key = PULL_SECRET_KEYS[type];
  const content = lookup.kind === 'found' ? lookup.content.kind : 'not-applicable';
  const document = key === undefined ? undefined : redactedDocument(obj(secret?.['data']), key, content);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: str(metadata?.['name']), namespace: str(metadata?.['namespace']), uid: str(metadata?.['uid']) },
    type,
    ...(key === undefined || document === undefined ? {} : { data: { [key]: document } }),
  };
}

/** The dump's record of a Secret it could not read (other than not found): `doctor -f` reports the same failure. */
export function unreadSecret(namespace: string, name: string, status: number | undefined, error: string): Record<string, unknown> {
  const recorded = status === undefined ? error : `${status} ${error}`;
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace, annotations: { [DUMP_READ_ERROR_ANNOTATION]: recorded } } };
}

/** The pull secrets, read by name; in a dump, stand-ins that hold no credential. */
export const SECRET_KIND = defineKind({
  kind: 'Secret',
  access: { ...CORE, resource: 'secrets', verbs: ['get'], namespaced: true, byNameOnly: true },
  reads: 'by-name',
  project: projectPullSecret,
  dump: { write: 'stand-in', standIn: dumpedSecret, why: 'a pull secret holds registry credentials' },
});
