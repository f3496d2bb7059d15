import { cutText } from '../checks/helpers.ts';
import type { ClusterState } from '../cluster/state/state.ts';
import { SUPPRESS_ANNOTATION, suppressAnnotationIn, type SuppressAnnotation } from '../cluster/kinds/suppress-annotation.ts';
import type { RuleScope, SuppressionRule } from './rule.ts';

/**
 * The longest reason (`inferencecache.io/doctor-suppress-reason`) a rule keeps, in characters: a
 * longer one is cut, its last kept character `…`. The reason is repeated in every finding the
 * annotation suppresses (`suppressedBy`) and in the rule's own findings, so its size must not be the
 * cluster's to choose; a sentence or two fits.
 */
export const MAX_REASON_LENGTH = 256;

/** The codes an annotation lists: separated by commas or white space, empty entries dropped. */
function codesOf(annotation: SuppressAnnotation): string[] {
  return [...new Set(annotation.codes.split(/[\s,]+/).filter((code) => code !== ''))];
}

function rulesOf(resource: string, annotation: SuppressAnnotation, scope: RuleScope): SuppressionRule[] {
  const reason = annotation.reason === undefined ? undefined : cutText(annotation.reason, MAX_REASON_LENGTH);
  return codesOf(annotation).map((code) => ({
    code,
    scope,
    ref: {
      source: `annotation ${SUPPRESS_ANNOTATION} on ${resource}`,
      match: code,
      ...(reason === undefined ? {} : { reason }),
    },
    location: resource,
  }));
}

function itemsOf<T>(read: { readonly ok: boolean; readonly items?: readonly T[] } | undefined): readonly T[] {
  return read?.ok === true ? (read.items ?? []) : [];
}

/**
 * The rules the gathered objects carry in their `inferencecache.io/doctor-suppress` annotation, one
 * per listed code: on a CacheBackend, CacheTenant or Pod (of any pod view the run gathered) a rule
 * matches findings about that object; on a Namespace, findings about anything in it. Annotation
 * values come from the cluster: a listed entry that is no code simply matches nothing, and the
 * suppression stage reports all of an object's such entries in one finding (SUP003), however many
 * there are. The reason beside them is kept up to {@link MAX_REASON_LENGTH} characters.
 */
export function annotationRules(state: ClusterState): SuppressionRule[] {
  const rules: SuppressionRule[] = [];
  const onObject = (kind: string, o: { namespace: string; name: string }, annotation: SuppressAnnotation | undefined) => {
    if (annotation === undefined) return;
    const resource = `${kind}/${o.namespace}/${o.name}`;
    rules.push(...rulesOf(resource, annotation, { kind: 'resource', resource }));
  };
  for (const b of itemsOf(state.cacheBackends)) onObject('cachebackend', b, b.suppress);
  for (const t of itemsOf(state.cacheTenants)) onObject('cachetenant', t, t.suppress);
  // A pod keeps the install's annotations, among them the suppression ones. The pods a finding can be
  // about are the install's and the selected ones; a pod in two views is one object, met once.
  const pods = new Set([...itemsOf(state.installPods).map(({ pod }) => pod), ...itemsOf(state.selectedPods), ...itemsOf(state.pods)]);
  for (const p of pods) onObject('pod', p, suppressAnnotationIn(p.annotations));
  for (const ns of itemsOf(state.namespaces)) {
    rules.push(...rulesOf(`namespace/${ns.name}`, ns.suppress, { kind: 'namespace', namespace: ns.name }));
  }
  return rules;
}
