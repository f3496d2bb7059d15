/**
 * How `inferencecache dump` writes one object of a Kind, by the Kind's dump policy (`kind.ts`): the
 * object with `apiVersion` and `kind` first (list items come without them), never with its
 * `managedFields` or kubectl's last-applied configuration, and redacted or stood in for as its Kind
 * declares.
 *
 * @module
 */

import { obj } from '../encoding/wire.ts';
import { apiVersionOf } from './access.ts';
import type { DumpPolicy, KindDeclaration } from './kind.ts';

/** The annotation `kubectl apply` keeps the whole applied object in (a Pod's literal env values among it). */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** What stands in for a value the dump leaves out. */
export const REDACTED = 'REDACTED';

/**
 * A URL's scheme and the userinfo after it, up to the last `@` before the path: a password may hold an
 * unescaped `@`, and a URL parser takes the last one as the end of the userinfo.
 */
const URL_USERINFO = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/?#]*@/g;

/** `text` with the credentials of every URL in it replaced: `https://user:pw@host` → `https://REDACTED@host`. */
export function withoutUrlCredentials(text: string): string {
  return text.includes('://') ? text.replace(URL_USERINFO, `$1${REDACTED}@`) : text;
}

/** Every string of a value (keys included) without URL credentials; arrays and objects copied where they change. */
function scrubbed(value: unknown): unknown {
  if (typeof value === 'string') return withoutUrlCredentials(value);
  if (Array.isArray(value)) return value.map(scrubbed);
  const fields = obj(value);
  if (fields === undefined) return value;
  return Object.fromEntries(Object.entries(fields).map(([key, v]) => [withoutUrlCredentials(key), scrubbed(v)]));
}

/** A flag or variable name that says its value is a secret; one naming a file, path or folder does not. */
const SECRET_NAME = /(?:pass(?:word|wd|phrase)?|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|credentials?|auth)/i;
const NAMES_A_PLACE = /(?:file|path|dir|directory)$/i;

function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NAMES_A_PLACE.test(name);
}

/**
 * One command-line word or string of words (`sh -c "…"`) with secret values masked: `--name=value`,
 * `NAME=value` and `name:value` forms, and the word after a `--name` flag. Returns whether the word
 * after the text is a secret flag's value.
 */
function maskedWords(text: string, pending: boolean): { text: string; pending: boolean } {
  let after = pending;
  const words = text.split(/(\s+)/).map((word) => {
    if (word === '' || /^\s+$/.test(word)) return word;
    if (after) {
      after = false;
      if (!word.startsWith('-')) return REDACTED;
    }
    const assigned = /^(-{0,2}[\w.-]+)([=:])(.+)$/.exec(word);
    if (assigned !== null && isSecretName(assigned[1] as string)) return `${assigned[1] as string}${assigned[2] as string}${REDACTED}`;
    if (/^--?[\w.-]+$/.test(word) && isSecretName(word)) after = true;
    return word;
  });
  return { text: words.join(''), pending: after };
}

/** A list of command-line words with secret flag values masked (see {@link maskedWords}). */
export function maskedCommandLine(words: unknown): unknown {
  if (!Array.isArray(words)) return words;
  let pending = false;
  return words.map((word: unknown) => {
    if (typeof word !== 'string') {
      pending = false;
      return word;
    }
    const masked = maskedWords(word, pending);
    pending = masked.pending;
    return masked.text;
  });
}

/** `value` with `change` applied to what the path (split at its dots) names; unchanged where it leads nowhere. */
function changed(value: unknown, steps: readonly string[], change: (found: unknown) => unknown): unknown {
  const [step, ...rest] = steps;
  if (step === undefined) return change(value);
  const list = step.endsWith('[]');
  const key = list ? step.slice(0, -2) : step;
  const fields = obj(value);
  if (fields === undefined || !(key in fields)) return value;
  const inner = fields[key];
  if (!list) return { ...fields, [key]: changed(inner, rest, change) };
  if (!Array.isArray(inner)) return value;
  return { ...fields, [key]: inner.map((element: unknown) => changed(element, rest, change)) };
}

/** `parent` without its field `step` (a `list[]` step empties the list); unchanged when it has none. */
function withoutField(parent: unknown, step: string): unknown {
  const list = step.endsWith('[]');
  const key = list ? step.slice(0, -2) : step;
  const fields = obj(parent);
  if (fields === undefined || !(key in fields)) return parent;
  if (list) return Array.isArray(fields[key]) ? { ...fields, [key]: [] } : parent;
  const { [key]: _removed, ...kept } = fields;
  return kept;
}

/** The object with the values at each of `paths` removed (see {@link DumpPolicy}). */
export function redacted(value: unknown, paths: readonly string[]): unknown {
  return paths.reduce((object, path) => {
    const steps = path.split('.');
    const last = steps.pop() ?? '';
    return changed(object, steps, (parent) => withoutField(parent, last));
  }, value);
}

/** The object of Kind `declaration` as the dump writes it. */
export function dumpedObject(declaration: Pick<KindDeclaration, 'kind' | 'access' | 'dump'>, raw: unknown): Record<string, unknown> {
  const policy: DumpPolicy = declaration.dump;
  if (policy.write === 'stand-in') return policy.standIn(raw);
  const apiVersion = apiVersionOf(declaration.access);
  const object: Record<string, unknown> = { apiVersion, kind: declaration.kind, ...obj(raw) };
  object['apiVersion'] = apiVersion;
  object['kind'] = declaration.kind;
  const metadata: Record<string, unknown> = { ...obj(object['metadata']) };
  delete metadata['managedFields'];
  const annotations = obj(metadata['annotations']);
  if (annotations?.[LAST_APPLIED] !== undefined) {
    const { [LAST_APPLIED]: _dropped, ...rest } = annotations;
    metadata['annotations'] = rest;
  }
  object['metadata'] = metadata;
  if (policy.write === 'whole') return scrubbed(object) as Record<string, unknown>;
  const masked = (policy.commandLines ?? []).reduce(
    (o, path) => changed(o, path.split('.'), maskedCommandLine),
    redacted(object, policy.remove),
  );
  return scrubbed(masked) as Record<string, unknown>;
}
