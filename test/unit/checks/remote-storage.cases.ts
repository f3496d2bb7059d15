/** RemoteStorageReadiness (RS, beyond upstream): docs/deviations.md. */
import { remoteStorageReadiness } from '../../../src/checks/remote-storage.ts';

import { cond, failed, given, healthy, ok, omit, type Case, type CheckTable } from './fixtures.ts';
import type { CacheBackend } from '../../../src/cluster/kinds/cache-backend.ts';

const R = 'cachebackend/ns1/be';
const backends = (...items: CacheBackend[]) => given({ cacheBackends: ok(items) });
const remote = (status: string, reason: string, message = '') => [
  cond('Ready', 'True'),
  cond('RemoteStorageReady', status, reason, message),
];

export const remoteStorageCases: readonly Case[] = [
  {
    name: 'list failed → single API001 on the bare kind',
    input: given({ cacheBackends: failed('cachebackends.inferencecache.io is forbidden') }),
    expected: [['API001', 'CacheBackend', ['forbidden']]],
  },
  {
    name: 'Managed, RemoteStorageReady=False → RS001 with status, reason and message',
    input: backends(healthy({ conditions: remote('False', 'RemoteStorageUnavailable', '0/1 replicas available') })),
    expected: [['RS001', R, ['RemoteStorageReady=False', '(reason RemoteStorageUnavailable)', ': 0/1 replicas available']]],
  },
  {
    name: 'Managed, RemoteStorageReady=Unknown with no message (RemoteStoragePending) → RS001 without a trailing colon',
    input: backends(healthy({ conditions: remote('Unknown', 'RemoteStoragePending') })),
    expected: [['RS001', R, ['Unknown', 'RemoteStoragePending'], [/serving:/]]],
  },
  {
    name: 'Managed, RemoteStorageReady=True → RS002',
    input: backends(healthy({ conditions: remote('True', 'RemoteStorageReady') })),
    expected: [['RS002', R, ['RemoteStorageReady']]],
  },
  {
    name: 'Managed without the condition yet → nothing (CB001 tells of a backend not reconciled)',
    input: backends(healthy()),
    expected: [],
  },
  {
    name: 'External, RemoteStorageReady=False → nothing: the operator runs that tier (CB005 dials it)',
    input: backends(healthy({ remoteStorage: { ownership: 'External' }, conditions: remote('False', 'RemoteStorageUnavailable', 'x') })),
    expected: [],
  },
  {
    name: 'host-only (no spec.remoteStorage), RemoteStorageReady=False → nothing',
    input: backends(omit(healthy({ conditions: remote('False', 'X', 'y') }), 'remoteStorage', 'endpoint')),
    expected: [],
  },
  {
    name: 'several backends: one finding each, in list order',
    input: backends(
      healthy({ name: 'b', conditions: remote('True', 'RemoteStorageReady') }),
      healthy({ name: 'a', conditions: remote('False', 'RemoteStorageUnavailable') }),
    ),
    expected: [
      ['RS002', 'cachebackend/ns1/b'],
      ['RS001', 'cachebackend/ns1/a'],
    ],
  },
  { name: 'no backends → nothing', input: given({}), expected: [] },
];

export const remoteStorageTable: CheckTable = { check: remoteStorageReadiness, cases: remoteStorageCases };
