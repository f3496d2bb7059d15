/** Whole runs through judge(): the fixed check order (R-1.2, R-1.3) and R-3.2's apiserver-down example. */
import {
  GRPC_TARGET,
  HTTP_BASE,
  REDIS,
  backend,
  cond,
  dials,
  event,
  failed,
  given,
  healthy,
  input,
  ok,
  pod,
  policy,
  response,
  probed,
  type ServerOverrides,
  state,
  tenant,
  type JudgeCase,
} from './fixtures.ts';
import { SERVER_LABELS, netpol, secrets } from './install-fixtures.ts';

const failingServer: ServerOverrides = {
  health: { kind: 'error', error: 'rpc error: code = Unavailable desc = connection refused' },
  snapshot: response(500),
  policy: response(404),
  probe: { kind: 'transport-error', error: 'ECONNREFUSED' },
  transport: {
    kind: 'tls-refused',
    refusal: { error: 'alert handshake failure', clientCertificateRequired: false },
    clientCertificateSent: false,
  },
};

/** Every check has something to complain about. */
export const everythingFailing = input({
  probes: { ...probed(failingServer), dials: dials({ [REDIS]: { ok: false, error: 'connection refused' } }) },
  namespace: 'ns1',
  state: state({
    cacheBackends: ok([
      backend({
        matchLabels: { app: 'engine' },
        remoteStorage: { ownership: 'Managed' },
        conditions: [cond('Ready', 'False', 'NoKVEventsObserved', 'no events seen')],
        endpoint: { value: REDIS, field: 'status.remoteStorage.endpoint' },
      }),
    ]),
    pods: ok([
      pod('e1', { labels: { app: 'engine' } }),
      pod('srv', { labels: { ...SERVER_LABELS }, phase: 'Pending', imagePullSecrets: ['gone'] }),
    ]),
    events: ok([event({ name: 'orphan' })]),
    cacheTenants: ok([tenant({ indexEntries: 11, maxIndexEntries: 10, conditions: [cond('QuotaExceeded', 'True')] })]),
    cachePolicies: ok([policy('ns1', 'a'), policy('ns1', 'b')]),
    scopeNamespace: { kind: 'not-found' },
    nodes: ok([]),
    serviceAccounts: ok([]),
    pullSecrets: secrets({ gone: { kind: 'not-found' } }),
    networkPolicies: ok([netpol('deny-all', [])]),
  }),
});

const apiserverDown = state({
  cacheBackends: failed('dial tcp 127.0.0.1:6443: connect: connection refused'),
  pods: failed('dial tcp 127.0.0.1:6443: connect: connection refused'),
  events: failed('dial tcp 127.0.0.1:6443: connect: connection refused'),
  cacheTenants: failed('dial tcp 127.0.0.1:6443: connect: connection refused'),
  cachePolicies: failed('dial tcp 127.0.0.1:6443: connect: connection refused'),
});

const FIVE_API001 = [
  ['CacheBackendHealth', 'API001', 'CacheBackend', ['connection refused']],
  ['EnginePodInjectionAudit', 'API001', 'CacheBackend', ['connection refused']],
  ['OrphanPodCheck', 'API001', 'Event', ['connection refused']],
  ['CacheTenantHealth', 'API001', 'CacheTenant', ['connection refused']],
  ['CachePolicyCoverage', 'API001', 'CacheBackend', ['connection refused']],
] as const;

/**
 * The checks these whole-run cases were written against. A run's findings are compared for these
 * checks only, so that a check added later does not rewrite every whole-run case (its own table and
 * the registry tests cover it) while any change in these checks' findings still fails a case.
 */
export const JUDGED_CHECKS: ReadonlySet<string> = new Set([
  'ServerReachability',
  'SnapshotReachability',
  'PolicyReachability',
  'ProbeReachability',
  'CacheBackendHealth',
  'EnginePodInjectionAudit',
  'OrphanPodCheck',
  'CacheTenantHealth',
  'CachePolicyCoverage',
  'NamespaceScope',
  'NodeFit',
  'ImagePullability',
  'NetworkPolicyReachability',
  'ServerTLS',
]);

export const judgeCases: readonly JudgeCase[] = [
  {
    name: 'everything failing: order SV, SN, PL, PB, CB, EP, OP, CT, CP, NS, NF, IP, NP, TL',
    input: everythingFailing,
    expected: [
      ['ServerReachability', 'SV001', GRPC_TARGET, ['Unavailable']],
      ['SnapshotReachability', 'SN001', `${HTTP_BASE}/snapshot`, ['500']],
      ['PolicyReachability', 'PL001', `${HTTP_BASE}/policy`, ['404']],
      ['ProbeReachability', 'PB001', `${HTTP_BASE}/probe`, ['ECONNREFUSED']],
      ['CacheBackendHealth', 'CB001', 'cachebackend/ns1/be', ['NoKVEventsObserved']],
      ['CacheBackendHealth', 'CB003', 'cachebackend/ns1/be'],
      ['CacheBackendHealth', 'CB005', 'cachebackend/ns1/be', ['connection refused']],
      ['EnginePodInjectionAudit', 'EP001', 'pod/ns1/e1'],
      ['OrphanPodCheck', 'OP001', 'pod/ns1/orphan'],
      ['CacheTenantHealth', 'CT001', 'cachetenant/ns1/t1', ['11', '10']],
      ['CachePolicyCoverage', 'CP003', 'namespace/ns1', ['2']],
      ['NamespaceScope', 'NS001', 'namespace/ns1'],
      ['NodeFit', 'NF001', 'pod/ns1/srv'],
      ['ImagePullability', 'IP001', 'secret/ns1/gone'],
      ['NetworkPolicyReachability', 'NP001', 'pod/ns1/srv', ['deny-all']],
      ['ServerTLS', 'TL010', GRPC_TARGET, ['alert handshake failure']],
    ],
  },
  {
    name: 'R-3.2: apiserver down with --config-only → 5 × API001',
    input: input({ state: apiserverDown }),
    expected: FIVE_API001,
  },
  {
    name: 'R-3.2: apiserver down without --config-only → discovery SV001 (no resource), then 5 × API001',
    input: input({
      state: apiserverDown,
      probes: probed({ location: { kind: 'failed', error: 'services is forbidden' } }),
    }),
    expected: [['ServerReachability', 'SV001', undefined, ['services is forbidden']], ...FIVE_API001],
  },
  {
    name: 'apiserver down with -n and an unverifiable namespace → 5 × API001 then NS002',
    input: input({ state: { ...apiserverDown, scopeNamespace: { kind: 'unknown', error: 'connection refused' } }, namespace: 'ns1' }),
    expected: [...FIVE_API001, ['NamespaceScope', 'NS002', 'namespace/ns1', ['connection refused']]],
  },
  {
    name: 'everything healthy, no token sent',
    input: input({
      probes: { ...probed({ tokenSent: false }), dials: dials({ [REDIS]: { ok: true } }) },
      state: state({
        cacheBackends: ok([healthy()]),
        pods: ok([
          pod('e1', {
            labels: { app: 'engine' },
            annotations: { 'inferencecache.io/injected-by': 'ns1/be', 'inferencecache.io/injected-by-uid': 'be-uid' },
          }),
        ]),
        cacheTenants: ok([tenant()]),
        cachePolicies: ok([policy('ns1', 'default')]),
      }),
    }),
    expected: [
      ['ServerReachability', 'SV003', GRPC_TARGET],
      ['SnapshotReachability', 'SN004', `${HTTP_BASE}/snapshot`],
      ['SnapshotReachability', 'SN003', `${HTTP_BASE}/snapshot`],
      ['PolicyReachability', 'PL002', `${HTTP_BASE}/policy`, ['401']],
      ['ProbeReachability', 'PB002', `${HTTP_BASE}/probe`, ['401']],
      ['CacheBackendHealth', 'CB006', 'cachebackend/ns1/be', ['endpoint reachable']],
      ['EnginePodInjectionAudit', 'EP002', 'pod/ns1/e1'],
      ['CacheTenantHealth', 'CT002', 'cachetenant/ns1/t1'],
      ['CachePolicyCoverage', 'CP002', 'namespace/ns1'],
    ],
  },
  { name: 'config-only, empty cluster → nothing', input: given({}), expected: [] },
];
