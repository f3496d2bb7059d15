/**
 * The Secret `inferencecache dump` writes in place of a pull secret it read: its namespace, name and
 * type, and a credentials document of the same shape holding no credential: for each registry entry,
 * its host and `"auth": "REDACTED"` when it had credentials, nothing when it had none. `doctor -f`
 * projects it to exactly what the live run projected the real one to (`project-pull-secret.ts`).
 *
 * @module
 */

import { DUMP_READ_ERROR_ANNOTATION } from './file-api.ts';
import { PULL_SECRET_KEYS, projectPullSecret } from './project-pull-secret.ts';
import { obj, str } from './wire.ts';

/** What stands in for a credential. */
const REDACTED = 'REDACTED';

/** The credential fields of a registry entry of a Docker config. */
const CREDENTIAL_FIELDS = ['auth', 'password', 'identitytoken', 'registrytoken'] as const;

/** Whether a registry entry carries a credential. */
function hasCredentials(entry: unknown): boolean {
  const fields = obj(entry);
  return CREDENTIAL_FIELDS.some((field) => str(fields?.[field]) !== '');
}

/** The registries of a credentials document, each with a stand-in for its credentials, or none. */
function redactedRegistries(registries: Readonly<Record<string, unknown>>): Record<string, { auth?: string }> {
  return Object.fromEntries(Object.entries(registries).map(([host, entry]) => [host, hasCredentials(entry) ? { auth: REDACTED } : {}]));
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

/** The dump's stand-in for a Secret read by name (`raw` as the API server gave it). */
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
