import type { PullSecretContent, PullSecretLookup } from './state.ts';
import { obj, str } from './wire.ts';

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
