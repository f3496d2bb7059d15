/** NamespaceScope (NS): docs/deviations.md#dev-6 (upstream B-8). */
import { namespaceScope } from '../../../src/checks/namespace-scope.ts';
import { given, type Case, type CheckTable } from './fixtures.ts';

export const namespaceCases: readonly Case[] = [
  {
    name: '-n given, namespace not found → NS001 on namespace/<ns>',
    input: given({ scopeNamespace: { kind: 'not-found' } }, { namespace: 'nosuch' }),
    expected: [['NS001', 'namespace/nosuch', ['"nosuch"']]],
  },
  {
    name: '-n given, existence unknown → NS002 with the error',
    input: given({ scopeNamespace: { kind: 'unknown', error: 'namespaces "team-a" is forbidden' } }, { namespace: 'team-a' }),
    expected: [['NS002', 'namespace/team-a', ['"team-a"', 'is forbidden']]],
  },
  { name: '-n given, namespace found → nothing', input: given({ scopeNamespace: { kind: 'found' } }, { namespace: 'ns1' }), expected: [] },
  { name: 'no -n → nothing', input: given({}), expected: [] },
  { name: 'no -n, stray not-found lookup → nothing', input: given({ scopeNamespace: { kind: 'not-found' } }), expected: [] },
  { name: '-n given but no lookup recorded → nothing', input: given({}, { namespace: 'ns1' }), expected: [] },
];

export const namespaceTable: CheckTable = { check: namespaceScope, cases: namespaceCases };
