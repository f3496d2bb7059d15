/** NetworkPolicyReachability (NP): why :8081 gave no answer, from the policies that select the server pod. */
import { networkPolicyReachability } from '../../../src/checks/network-policy.ts';
import type { ClusterState } from '../../../src/cluster/state/state.ts';
import type { DoctorPod } from '../../../src/cluster/gather/pod-identity.ts';
import type { HttpResult } from '../../../src/probes/results.ts';
import { HTTP_BASE, failed, given, ok, omit, pod, response, probed, type Case, type CheckTable, type ServerOverrides } from './fixtures.ts';
import {
  CONTROLLER_LABELS,
  SERVER_LABELS,
  doctorPod,
  live,
  netpol,
  rule,
  selector,
  serverPod,
  tcp,
  upstreamFence,
} from './install-fixtures.ts';
import type { NamespaceLookup } from '../../../src/cluster/kinds/namespace.ts';

const timedOut = (route: string): HttpResult => ({
  kind: 'transport-error',
  error: `no answer to ${route} within the probe budget of 10s`,
});
/** Every :8081 probe black-holed. */
const blackholed: ServerOverrides = {
  snapshot: timedOut('GET /snapshot'),
  policy: timedOut('HEAD /policy'),
  probe: timedOut('HEAD /probe'),
};
const SRV = 'pod/ns1/server-0';
const FENCE = 'NetworkPolicy "ns1/inference-cache-server-snapshot"';
const DOCTOR_LABELS = { 'app.kubernetes.io/name': 'inference-cache', 'app.kubernetes.io/component': 'doctor' };

function ns(labels: Record<string, string>): NamespaceLookup {
  return { kind: 'found', labels };
}

/** The doctor in `namespace` (labels as given) against the server pod and `policies`, every probe black-holed. */
function inCluster(
  name: string,
  self: DoctorPod,
  s: Partial<ClusterState>,
  expected: Case['expected'],
  probes: ServerOverrides = blackholed,
): Case {
  return {
    name,
    input: live(
      { pods: ok([serverPod()]), ownNamespace: ns({ 'kubernetes.io/metadata.name': self.namespace }), ...s },
      { probes: probed(probes), self },
    ),
    expected,
  };
}

const doctorIn = (namespace: string, labels: Record<string, string> | undefined = DOCTOR_LABELS) => doctorPod(namespace, labels);

export const networkPolicyCases: readonly Case[] = [
  inCluster(
    'in the server namespace without the controller labels → NP001 naming the policy and the missing label',
    doctorIn('ns1'),
    { networkPolicies: ok([upstreamFence()]) },
    [
      [
        'NP001',
        SRV,
        [
          FENCE,
          'app.kubernetes.io/component=controller (is "doctor")',
          'namespace "ns1"',
          'GET /snapshot, HEAD /policy and HEAD /probe to http://host:8081 got no HTTP answer (no answer to GET /snapshot',
          'Helm test',
        ],
        ['app.kubernetes.io/name=inference-cache ('],
      ],
    ],
  ),
  inCluster(
    'with the controller labels, port by number → NP003 (not the cause)',
    doctorIn('ns1', { ...CONTROLLER_LABELS }),
    { networkPolicies: ok([upstreamFence()]) },
    [['NP003', SRV, [FENCE, 'ingress rule 2', 'no NetworkPolicy blocks it']]],
  ),
  inCluster(
    'port by name resolves against the server pod ("snapshot" = 8081) → the rule applies',
    doctorIn('ns1', { ...CONTROLLER_LABELS }),
    { networkPolicies: ok([upstreamFence('snapshot')]) },
    [['NP003', SRV, ['ingress rule 2']]],
  ),
  inCluster('port by name, doctor without the labels → NP001', doctorIn('ns1'), { networkPolicies: ok([upstreamFence('snapshot')]) }, [
    ['NP001', SRV, ['app.kubernetes.io/component=controller (is "doctor")']],
  ]),
  inCluster(
    'a port name the server pod does not have admits nothing on 8081 → NP001 saying so',
    doctorIn('ns1', { ...CONTROLLER_LABELS }),
    { networkPolicies: ok([upstreamFence('metrics')]) },
    [['NP001', SRV, ['admits no traffic to port 8081', 'metrics/TCP (no such port on the server pod)', '8080/TCP, 9090/TCP']]],
  ),
  inCluster(
    'a named port of another number does not match 8081',
    doctorIn('ns1', { ...CONTROLLER_LABELS }),
    { networkPolicies: ok([upstreamFence('grpc')]) },
    [['NP001', SRV, ['grpc/TCP (= 9090)']]],
  ),
  inCluster(
    'controller labels but another namespace (podSelector without namespaceSelector) → NP001 naming both namespaces',
    doctorIn('tools', { ...CONTROLLER_LABELS }),
    { networkPolicies: ok([upstreamFence()]) },
    [['NP001', SRV, ['runs in namespace "tools", not "ns1"'], ['lacks app.kubernetes.io']]],
  ),
  ...(() => {
    const exprPolicy = netpol('by-expression', [
      rule(
        [
          {
            podSelector: selector({}, [
              { key: 'role', operator: 'In', values: ['controller', 'doctor'] },
              { key: 'tier', operator: 'NotIn', values: ['untrusted'] },
              { key: 'diagnostics', operator: 'Exists', values: [] },
              { key: 'sandbox', operator: 'DoesNotExist', values: [] },
            ]),
          },
        ],
        [tcp(8081)],
      ),
    ]);
    const s = { networkPolicies: ok([exprPolicy]) };
    return [
      inCluster(
        'matchExpressions In/NotIn/Exists/DoesNotExist all met → NP003',
        doctorIn('ns1', { role: 'doctor', diagnostics: 'yes' }),
        s,
        [['NP003', SRV, ['"ns1/by-expression"']]],
      ),
      inCluster('matchExpressions: In not met', doctorIn('ns1', { role: 'web', diagnostics: 'yes' }), s, [
        ['NP001', SRV, ['role in (controller, doctor) (is "web")']],
      ]),
      inCluster('matchExpressions: In on an absent key', doctorIn('ns1', { diagnostics: 'yes' }), s, [
        ['NP001', SRV, ['role in (controller, doctor) (absent)']],
      ]),
      inCluster('matchExpressions: NotIn not met', doctorIn('ns1', { role: 'doctor', diagnostics: 'yes', tier: 'untrusted' }), s, [
        ['NP001', SRV, ['tier notin (untrusted) (is "untrusted")']],
      ]),
      inCluster('matchExpressions: Exists not met, DoesNotExist not met', doctorIn('ns1', { role: 'doctor', sandbox: '' }), s, [
        ['NP001', SRV, ['diagnostics (absent)', '!sandbox (is "")']],
      ]),
    ];
  })(),
  ...(() => {
    const opsOnly = netpol('ops-namespaces', [rule([{ namespaceSelector: selector({ team: 'ops' }) }], [tcp(8081)])]);
    const opsDoctors = netpol('ops-doctors', [
      rule([{ namespaceSelector: selector({ team: 'ops' }), podSelector: selector({ app: 'doctor' }) }], [tcp(8000, 8100)]),
    ]);
    return [
      inCluster(
        'namespaceSelector: the doctor namespace has the label → NP003',
        doctorIn('tools'),
        { networkPolicies: ok([opsOnly]), ownNamespace: ns({ team: 'ops' }) },
        [['NP003', SRV]],
      ),
      inCluster(
        'namespaceSelector: the doctor namespace lacks the label → NP001 naming it',
        doctorIn('tools'),
        { networkPolicies: ok([opsOnly]), ownNamespace: ns({ team: 'dev' }) },
        [['NP001', SRV, ['"ns1/ops-namespaces"', 'namespaces with team=ops', 'namespace "tools" lacks team=ops (is "dev")']]],
      ),
      inCluster(
        'namespaceSelector and podSelector together, port range 8000-8100 → both must hold',
        doctorIn('tools', { app: 'doctor' }),
        { networkPolicies: ok([opsDoctors]), ownNamespace: ns({ team: 'ops' }) },
        [['NP003', SRV]],
      ),
      inCluster(
        'namespaceSelector and podSelector together: pod label missing',
        doctorIn('tools', { app: 'web' }),
        { networkPolicies: ok([opsDoctors]), ownNamespace: ns({ team: 'ops' }) },
        [
          [
            'NP001',
            SRV,
            ['pods with app=doctor in namespaces with team=ops', 'the doctor\'s pod lacks app=doctor (is "web")'],
            ['namespace "tools" lacks'],
          ],
        ],
      ),
      inCluster(
        'namespace labels unreadable → NP004: undecidable, saying why',
        doctorIn('tools'),
        { networkPolicies: ok([opsOnly]), ownNamespace: { kind: 'unknown', error: 'namespaces "tools" is forbidden' } },
        [['NP004', SRV, ['could not be decided', 'namespaces "tools" is forbidden', 'may lack team=ops']]],
      ),
      inCluster(
        'namespace labels unreadable, but kubernetes.io/metadata.name decides → NP003',
        doctorIn('tools'),
        {
          networkPolicies: ok([
            netpol('by-name', [rule([{ namespaceSelector: selector({ 'kubernetes.io/metadata.name': 'tools' }) }], [tcp(8081)])]),
          ]),
          ownNamespace: { kind: 'unknown', error: 'forbidden' },
        },
        [['NP003', SRV]],
      ),
      inCluster(
        'several policies: one admits (the union of what selecting policies allow) → NP003 naming it',
        doctorIn('tools'),
        { networkPolicies: ok([upstreamFence(), opsOnly]), ownNamespace: ns({ team: 'ops' }) },
        [['NP003', SRV, ['"ns1/ops-namespaces"']]],
      ),
      inCluster(
        'several policies, none admits → NP001 naming each with what is missing',
        doctorIn('tools'),
        { networkPolicies: ok([upstreamFence(), opsOnly]), ownNamespace: ns({}) },
        [
          [
            'NP001',
            SRV,
            [
              FENCE,
              'runs in namespace "tools", not "ns1"',
              'app.kubernetes.io/component=controller (is "doctor")',
              '"ns1/ops-namespaces"',
              'team=ops (absent)',
            ],
          ],
        ],
      ),
    ];
  })(),
  inCluster(
    'a deny-all policy (no ingress rules) → NP001',
    doctorIn('ns1', { ...CONTROLLER_LABELS }),
    { networkPolicies: ok([netpol('deny-all', [], { podSelector: selector() })]) },
    [['NP001', SRV, ['"ns1/deny-all"', 'admits no ingress at all']]],
  ),
  inCluster(
    'a rule with no from and port 8081 admits any source → NP003',
    doctorIn('other'),
    { networkPolicies: ok([netpol('open', [rule([], [tcp(8081)])])]) },
    [['NP003', SRV, ['from any source']]],
  ),
  inCluster(
    'UDP 8081 is not TCP 8081 → NP001',
    doctorIn('ns1', { ...CONTROLLER_LABELS }),
    { networkPolicies: ok([netpol('udp', [rule([], [{ protocol: 'UDP', port: 8081 }])])]) },
    [['NP001', SRV, ['8081/UDP']]],
  ),
  inCluster(
    'policyTypes absent: Ingress is implied',
    doctorIn('ns1'),
    { networkPolicies: ok([omit(netpol('implied', []), 'policyTypes')]) },
    [['NP001', SRV, ['"ns1/implied"']]],
  ),
  inCluster(
    'an Egress-only policy does not isolate ingress → NP003, no policy blocks',
    doctorIn('ns1'),
    { networkPolicies: ok([netpol('egress', [], { policyTypes: ['Egress'] })]) },
    [['NP003', SRV, ['no NetworkPolicy isolates ingress']]],
  ),
  inCluster(
    'a policy that selects other pods, or lives in another namespace, does not count',
    doctorIn('ns1'),
    {
      networkPolicies: ok([
        netpol('web-only', [], { podSelector: selector({ app: 'web' }) }),
        netpol('elsewhere', [], { namespace: 'other', podSelector: selector() }),
      ]),
    },
    [['NP003', SRV, ['no NetworkPolicy isolates ingress']]],
  ),
  inCluster(
    "the doctor's labels file is unreadable → NP004 saying so",
    doctorPod('ns1', undefined),
    { networkPolicies: ok([upstreamFence()]) },
    [
      [
        'NP004',
        SRV,
        [
          "the doctor's own labels are unknown",
          '/etc/podinfo/labels',
          'ENOENT',
          'may lack app.kubernetes.io/name=inference-cache, app.kubernetes.io/component=controller',
        ],
      ],
    ],
  ),
  inCluster(
    'only GET /snapshot got no answer → still judged',
    doctorIn('ns1'),
    { networkPolicies: ok([upstreamFence()]) },
    [['NP001', SRV, ['GET /snapshot to http://host:8081 got no HTTP answer'], ['HEAD /policy']]],
    { snapshot: timedOut('GET /snapshot') },
  ),
  {
    name: 'from a workstation → NP002 listing who may reach :8081',
    input: live(
      {
        pods: ok([serverPod()]),
        networkPolicies: ok([
          upstreamFence(),
          netpol('vpn', [rule([{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], [tcp(8081)])]),
        ]),
      },
      { probes: probed(blackholed) },
    ),
    expected: [
      [
        'NP002',
        SRV,
        [
          'outside the cluster (no POD_NAMESPACE)',
          `pods with app.kubernetes.io/name=inference-cache,app.kubernetes.io/component=controller in namespace "ns1" (${FENCE})`,
          'addresses in 10.0.0.0/8 except 10.1.0.0/16 (NetworkPolicy "ns1/vpn")',
        ],
      ],
    ],
  },
  {
    name: 'from a workstation, nothing admitted on 8081 → NP001',
    input: live({ pods: ok([serverPod()]), networkPolicies: ok([upstreamFence('metrics')]) }, { probes: probed(blackholed) }),
    expected: [['NP001', SRV, ['admits no traffic to port 8081']]],
  },
  {
    name: 'two server pods labelled alike → one finding; a differently labelled one → its own',
    input: live(
      {
        pods: ok([
          serverPod(),
          serverPod({ name: 'server-1', uid: 's1' }),
          serverPod({ name: 'canary', uid: 'c', labels: { ...SERVER_LABELS, track: 'canary' } }),
        ]),
        networkPolicies: ok([upstreamFence()]),
      },
      { probes: probed(blackholed) },
    ),
    expected: [
      ['NP002', SRV, ['and 1 more server pod(s) labelled alike']],
      ['NP002', 'pod/ns1/canary', [], ['more server pod']],
    ],
  },
  {
    name: 'no server pod among the pods read → NP004 naming the labels and the scope',
    input: live({ pods: ok([pod('web')]), networkPolicies: ok([upstreamFence()]) }, { probes: probed(blackholed), namespace: 'ns1' }),
    expected: [
      [
        'NP004',
        HTTP_BASE,
        ['no pod labelled app.kubernetes.io/name=inference-cache,app.kubernetes.io/component=server', 'in namespace "ns1" (--namespace)'],
      ],
    ],
  },
  {
    name: 'NetworkPolicies read failed → NP004',
    input: live(
      { pods: ok([serverPod()]), networkPolicies: failed('networkpolicies.networking.k8s.io is forbidden') },
      { probes: probed(blackholed) },
    ),
    expected: [['NP004', HTTP_BASE, ['listing NetworkPolicy objects failed', 'is forbidden']]],
  },
  {
    name: 'pods read failed → NP004',
    input: live({ pods: failed('connection refused') }, { probes: probed(blackholed) }),
    expected: [['NP004', HTTP_BASE, ['listing Pod objects failed']]],
  },
  {
    name: 'every :8081 probe got an HTTP answer → nothing',
    input: live(
      { pods: ok([serverPod()]), networkPolicies: ok([upstreamFence()]) },
      { probes: { ...probed({ snapshot: response(401), policy: response(404) }) }, self: doctorIn('ns1') },
    ),
    expected: [],
  },
  {
    name: 'config-only (no probes) → nothing',
    input: live({ pods: ok([serverPod()]), networkPolicies: ok([upstreamFence()]) }),
    expected: [],
  },
  {
    name: 'server not located → nothing (ServerReachability says why)',
    input: live({ pods: ok([serverPod()]) }, { probes: probed({ location: { kind: 'failed', error: 'no Service' } }) }),
    expected: [],
  },
  {
    name: 'NetworkPolicies not gathered (offline input) → nothing',
    input: given({ pods: ok([serverPod()]) }, { probes: probed(blackholed) }),
    expected: [],
  },
];

/** One rule admitting 8081 from `n` peers, each pods labelled `app=a-<i>` of the policy's namespace. */
function manyPeers(n: number) {
  return netpol('many-peers', [
    rule(
      Array.from({ length: n }, (_, i) => ({ podSelector: selector({ app: `a-${i}` }) })),
      [tcp(8081)],
    ),
  ]);
}
/** A message of at most `n` characters. */
const atMost = (n: number) => new RegExp(`^.{1,${n}}$`, 'su');

/** What one policy holds (rules, peers, ports, label requirements) is listed a few items at a time. */
export const networkPolicyBoundCases: readonly Case[] = [
  inCluster(
    'a policy admitting 8081 from 8 peers, none the doctor → NP001 listing all 8',
    doctorIn('ns1'),
    { networkPolicies: ok([manyPeers(8)]) },
    [['NP001', SRV, ['app=a-0 (absent)', 'app=a-7 (absent)'], ['more']]],
  ),
  inCluster(
    'a policy admitting 8081 from 10000 peers, none the doctor → NP001 listing 8 and counting the rest',
    doctorIn('ns1'),
    { networkPolicies: ok([manyPeers(10_000)]) },
    [['NP001', SRV, ['app=a-7 (absent) and 9992 more', atMost(3000)], [/app=a-8\b/]]],
  ),
  {
    name: 'from a workstation, a policy admitting 10000 sources → NP002 listing 8 and counting the rest',
    input: live({ pods: ok([serverPod()]), networkPolicies: ok([manyPeers(10_000)]) }, { probes: probed(blackholed) }),
    expected: [['NP002', SRV, ['pods with app=a-7 in namespace "ns1" (NetworkPolicy "ns1/many-peers") and 9992 more', atMost(2000)]]],
  },
  inCluster(
    'a policy admitting 10000 ports, none 8081 → NP001 listing 8 and counting the rest',
    doctorIn('ns1', { ...CONTROLLER_LABELS }),
    {
      networkPolicies: ok([
        netpol('many-ports', [
          rule(
            [],
            Array.from({ length: 10_000 }, (_, i) => tcp(10_000 + i)),
          ),
        ]),
      ]),
    },
    [['NP001', SRV, ['admits only 10000/TCP, 10001/TCP', '10007/TCP and 9992 more', atMost(1000)], ['10008/TCP']]],
  ),
  inCluster(
    'a peer whose selector holds 10000 labels → NP001 naming 8 the doctor lacks, the selector cut short',
    doctorIn('ns1'),
    {
      networkPolicies: ok([
        netpol('many-labels', [
          rule([{ podSelector: selector(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 'v']))) }], [tcp(8081)]),
        ]),
      ]),
    },
    [['NP001', SRV, ['pods with k0=v,k1=v', '…', 'lacks k0=v (absent)', 'k7=v (absent) and 9992 more', atMost(1500)], ['k8=v (absent)']]],
  ),
  inCluster(
    '20 deny-all policies select the server pod → NP001 naming 8 of them and counting the rest',
    doctorIn('ns1', { ...CONTROLLER_LABELS }),
    { networkPolicies: ok(Array.from({ length: 20 }, (_, i) => netpol(`deny-${i}`, []))) },
    [['NP001', SRV, ['"ns1/deny-7" and 12 more select the server pod', '"ns1/deny-7" admits no ingress at all and 12 more', atMost(2000)]]],
  ),
];

export const networkPolicyBoundTable: CheckTable = { check: networkPolicyReachability, cases: networkPolicyBoundCases };

export const networkPolicyTable: CheckTable = { check: networkPolicyReachability, cases: networkPolicyCases };
