/**
 * The namespace a finding is about, read from its resource: the suppression rules of a Namespace's
 * annotation match by it, and the HTML report filters by it.
 *
 * @module
 */

/** The namespace of a finding's resource (`kind/namespace/name` or `namespace/name`), if it names one. */
export function namespaceOf(resource: string | undefined): string | undefined {
  const parts = resource?.split('/') ?? [];
  if (parts.length === 3 && !resource?.includes('://')) return parts[1];
  if (parts.length === 2 && parts[0] === 'namespace') return parts[1];
  return undefined;
}
