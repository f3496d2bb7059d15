import { emitterFor, type Finding } from '../report/finding.ts';
import { goQuote } from '../report/gofmt.ts';
import type { CheckInput } from './input.ts';

const emit = emitterFor('NamespaceScope');

/**
 * NamespaceScope: a `--namespace` that does not exist would make every list empty and the run look
 * clean while nothing was checked, so it is reported.
 */
export function namespaceScope({ state, namespace }: CheckInput): Finding[] {
  const lookup = state.namespace;
  if (namespace === '' || lookup === undefined || lookup.kind === 'found') return [];
  const resource = `namespace/${namespace}`;
  if (lookup.kind === 'not-found') {
    return [emit('NS001', resource, `namespace ${goQuote(namespace)} given with --namespace does not exist, so nothing was checked there; check its spelling`)];
  }
  return [emit('NS002', resource, `whether namespace ${goQuote(namespace)} exists could not be verified: ${lookup.error}`)];
}
