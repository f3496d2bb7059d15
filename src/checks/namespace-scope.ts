import { goQuote } from '../go/quote.ts';
import { defineCheck, type CodeDeclaration } from './check.ts';

const CODES = {
  NS001: {
    status: 'FAIL',
    meaning: 'The namespace given with --namespace does not exist, so nothing in it was checked.',
    hint: 'Check the spelling of --namespace (kubectl get namespaces), or leave it out to check every namespace.',
    fix: '1. List the namespaces: kubectl get namespaces. 2. Run the doctor again with the right name in -n, or without -n to check every namespace. Nothing was checked in the namespace named, so no other finding of this run speaks for it.',
  },
  NS002: {
    status: 'INFO',
    meaning: 'Whether the namespace given with --namespace exists could not be verified.',
    hint: 'Grant the doctor get on namespaces (the chart does) to tell an empty namespace from a missing one.',
    fix: "1. The doctor could not get the namespace, so an empty result might mean a missing namespace. 2. Grant its identity get on namespaces (the chart's ClusterRole does; kubectl auth can-i get namespaces --as=<identity> tells), or check by hand with kubectl get namespace <name>.",
  },
} as const satisfies Record<string, CodeDeclaration>;

/**
 * NamespaceScope: a `--namespace` that does not exist would make every list empty and the run look
 * clean while nothing was checked, so it is reported. Runs only when a namespace was named.
 */
export const namespaceScope = defineCheck({
  name: 'NamespaceScope',
  codes: CODES,
  reads: { scopeNamespace: 'read' },
  probes: {},
  judge({ state, namespace }, emit) {
    const lookup = state.scopeNamespace;
    if (namespace === '' || lookup.kind === 'found') return [];
    const resource = `namespace/${namespace}`;
    if (lookup.kind === 'not-found') {
      return [
        emit(
          'NS001',
          resource,
          `namespace ${goQuote(namespace)} given with --namespace does not exist, so nothing was checked there; check its spelling`,
        ),
      ];
    }
    return [emit('NS002', resource, `whether namespace ${goQuote(namespace)} exists could not be verified: ${lookup.error}`)];
  },
});
