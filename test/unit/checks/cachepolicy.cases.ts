/** CachePolicyCoverage (CP): docs/upstream.md. */
import { cachePolicyCoverage } from '../../../src/checks/cachepolicy-coverage.ts';

import { backend, failed, given, ok, policy, type Case, type CheckTable } from './fixtures.ts';
import type { CachePolicy } from '../../../src/cluster/kinds/cache-policy.ts';

const inNs = (...namespaces: string[]) => ok(namespaces.map((ns, i) => backend({ namespace: ns, name: `be${i}` })));
const policies = (...items: CachePolicy[]) => ok(items);

export const cachePolicyCases: readonly Case[] = [
  {
    name: '0 policies → CP001',
    input: given({ cacheBackends: inNs('ns1'), cachePolicies: policies() }),
    expected: [['CP001', 'namespace/ns1', ['"ns1"']]],
  },
  {
    name: '1 policy → CP002',
    input: given({ cacheBackends: inNs('ns1'), cachePolicies: policies(policy('ns1', 'p')) }),
    expected: [['CP002', 'namespace/ns1', ['"ns1"', '1']]],
  },
  {
    name: '2 policies → CP003 with the count',
    input: given({ cacheBackends: inNs('ns1'), cachePolicies: policies(policy('ns1', 'p'), policy('ns1', 'q')) }),
    expected: [['CP003', 'namespace/ns1', ['"ns1"', /\b2\b/]]],
  },
  {
    name: '3 policies → CP003 with the count',
    input: given({ cacheBackends: inNs('ns1'), cachePolicies: policies(policy('ns1', 'p'), policy('ns1', 'q'), policy('ns1', 'r')) }),
    expected: [['CP003', 'namespace/ns1', [/\b3\b/]]],
  },
  {
    name: 'pinned: bare + covered → [CP001, CP002]',
    input: given({ cacheBackends: inNs('covered', 'bare'), cachePolicies: policies(policy('covered', 'default')) }),
    expected: [
      ['CP001', 'namespace/bare'],
      ['CP002', 'namespace/covered'],
    ],
  },
  {
    name: 'namespaces sorted byte-wise: b, a, B → B, a, b',
    input: given({ cacheBackends: inNs('b', 'a', 'B'), cachePolicies: policies(policy('a', 'p')) }),
    expected: [
      ['CP001', 'namespace/B'],
      ['CP002', 'namespace/a'],
      ['CP001', 'namespace/b'],
    ],
  },
  {
    name: 'byte-wise (UTF-8), not UTF-16, order: U+FF21 before U+1F600',
    input: given({ cacheBackends: inNs('\u{1F600}', '\uFF21') }),
    expected: [
      ['CP001', 'namespace/\uFF21'],
      ['CP001', 'namespace/\u{1F600}'],
    ],
  },
  {
    name: 'one finding per namespace however many backends it holds',
    input: given({ cacheBackends: inNs('ns1', 'ns1', 'ns1') }),
    expected: [['CP001', 'namespace/ns1']],
  },
  {
    name: 'policies in namespaces without backends are ignored',
    input: given({ cacheBackends: inNs('ns1'), cachePolicies: policies(policy('other', 'p'), policy('other', 'q'), policy('ns1', 'p')) }),
    expected: [['CP002', 'namespace/ns1']],
  },
  { name: 'no backends → nothing', input: given({ cachePolicies: policies(policy('ns1', 'p')) }), expected: [] },
  { name: 'no backends → nothing even when the policies read failed', input: given({ cachePolicies: failed('forbidden') }), expected: [] },
  {
    name: 'policies read failed with backends → API001 CachePolicy',
    input: given({ cacheBackends: inNs('ns1'), cachePolicies: failed('cachepolicies is forbidden') }),
    expected: [['API001', 'CachePolicy', ['cachepolicies is forbidden']]],
  },
  {
    name: 'backends read failed → API001 CacheBackend',
    input: given({ cacheBackends: failed('connection refused'), cachePolicies: failed('x') }),
    expected: [['API001', 'CacheBackend', ['connection refused']]],
  },
];

export const cachePolicyTable: CheckTable = { check: cachePolicyCoverage, cases: cachePolicyCases };
