import { obj, str, stringMap } from '../encoding/wire.ts';
import { CORE } from './access.ts';
import { defineKind } from './kind.ts';
import { suppressAnnotation, type SuppressAnnotation } from './suppress-annotation.ts';

/** A Namespace that carries a suppression annotation. */
export interface NamespaceRecord {
  readonly name: string;
  readonly suppress: SuppressAnnotation;
}

/** What a GET of one Namespace found: its labels, that it does not exist, or why it could not be read. */
export type NamespaceLookup =
  | { readonly kind: 'found'; readonly labels?: Readonly<Record<string, string>>; readonly suppress?: SuppressAnnotation }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'unknown'; readonly error: string };

/** A Namespace with a suppression annotation; undefined (dropped as it is read) for any other. */
export function projectNamespace(raw: unknown): NamespaceRecord | undefined {
  const suppress = suppressAnnotation(raw);
  return suppress === undefined ? undefined : { name: str(obj(obj(raw)?.['metadata'])?.['name']), suppress };
}

/** A Namespace read by name, as found: its labels and its suppression annotation. */
export function foundNamespace(raw: unknown): NamespaceLookup {
  const suppress = suppressAnnotation(raw);
  return {
    kind: 'found',
    labels: stringMap(obj(obj(raw)?.['metadata'])?.['labels']),
    ...(suppress === undefined ? {} : { suppress }),
  };
}

/**
 * The Namespaces: listed for their suppression annotations, and read by name (the one `--namespace`
 * names, the doctor's own) for their existence and labels.
 */
export const NAMESPACE_KIND = defineKind({
  kind: 'Namespace',
  access: { ...CORE, resource: 'namespaces', verbs: ['list'], namespaced: false },
  reads: 'list',
  project: projectNamespace,
  dump: { write: 'whole' },
});
