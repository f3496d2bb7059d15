// The test-support NetworkPolicy evaluator against hand-made cases (each admit next to its deny), then
// the rendered doctor pod against the upstream policy and our sample: admitted to :8081 from the
// server's namespace, refused from anywhere else or without the controller labels.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests, loadYamlFile, type KubeObject } from '../../../dev/cluster/manifests.ts';
import { upstreamData } from '../../support/upstream.ts';
import { helmBinaries, helmTemplate, only, skipReason } from '../../support/helm.ts';
import { evaluateIngress, inCidr, selectorMatches, type LabelSelector, type NetworkPolicy, type PodEndpoint } from '../../support/netpol.ts';

describe('selectorMatches', () => {
  const labels = { app: 'cache', tier: 'control', env: 'prod' };
  const cases: [string, LabelSelector, boolean][] = [
    ['empty selects all', {}, true],
    ['matchLabels hit', { matchLabels: { app: 'cache' } }, true],
    ['matchLabels miss', { matchLabels: { app: 'other' } }, false],
    ['matchLabels needs all', { matchLabels: { app: 'cache', tier: 'data' } }, false],
    ['In hit', { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'stage'] }] }, true],
    ['In miss', { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] }, false],
    ['In on an absent key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    ['NotIn hit', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] }, true],
    ['NotIn miss', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, false],
    ['NotIn on an absent key', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['Exists hit', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, true],
    ['Exists miss', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
    ['DoesNotExist hit', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, true],
    ['DoesNotExist miss', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, false],
    ['labels and expressions together', { matchLabels: { app: 'cache' }, matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, false],
  ];
  it.each(cases)('%s', (_name, selector, want) => expect(selectorMatches(selector, labels)).toBe(want));
});

describe('inCidr', () => {
  it.each([
    ['10.1.2.3', '10.0.0.0/8', true],
    ['11.1.2.3', '10.0.0.0/8', false],
    ['192.168.1.255', '192.168.1.0/24', true],
    ['192.168.2.0', '192.168.1.0/24', false],
    ['1.2.3.4', '0.0.0.0/0', true],
    ['1.2.3.4', '1.2.3.4/32', true],
    ['1.2.3.5', '1.2.3.4/32', false],
    ['fd00::1', '0.0.0.0/0', false],
  ])('%s in %s: %s', (ip, cidr, want) => expect(inCidr(ip, cidr)).toBe(want));
});

describe('evaluateIngress', () => {
  const server: PodEndpoint = { namespace: 'sys', labels: { role: 'server' }, ip: '10.0.0.5', ports: [{ name: 'api', containerPort: 8081 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] };
  const friend: PodEndpoint = { namespace: 'sys', labels: { role: 'controller' }, ip: '10.0.1.7' };
  const stranger: PodEndpoint = { namespace: 'sys', labels: { role: 'other' }, ip: '10.9.0.1' };
  const friendElsewhere: PodEndpoint = { ...friend, namespace: 'apps' };
  const nsLabels = (ns: string) => (ns === 'apps' ? { team: 'a' } : {});
  const policy = (name: string, spec: Partial<NetworkPolicy['spec']>, namespace = 'sys'): NetworkPolicy => ({
    metadata: { name, namespace },
    spec: { podSelector: { matchLabels: { role: 'server' } }, ...spec },
  });
  const fromFriend = { from: [{ podSelector: { matchLabels: { role: 'controller' } } }] };
  const cases: { name: string; policies: NetworkPolicy[]; source: PodEndpoint; port?: number; protocol?: 'TCP' | 'UDP'; allowed: boolean; isolated?: boolean }[] = [
    { name: 'no policy: open', policies: [], source: stranger, allowed: true, isolated: false },
    { name: 'a policy in another namespace does not isolate', policies: [policy('p', { ingress: [] }, 'apps')], source: stranger, allowed: true, isolated: false },
    { name: 'a policy selecting other pods does not isolate', policies: [policy('p', { podSelector: { matchLabels: { role: 'db' } }, ingress: [] })], source: stranger, allowed: true, isolated: false },
    { name: 'Egress-only does not isolate ingress', policies: [policy('p', { policyTypes: ['Egress'] })], source: stranger, allowed: true, isolated: false },
    { name: 'no policyTypes and no rules: deny all ingress', policies: [policy('p', {})], source: friend, allowed: false, isolated: true },
    { name: 'an empty rule admits everyone', policies: [policy('p', { ingress: [{}] })], source: stranger, allowed: true },
    { name: 'podSelector peer: the friend', policies: [policy('p', { ingress: [fromFriend] })], source: friend, allowed: true },
    { name: 'podSelector peer: a stranger', policies: [policy('p', { ingress: [fromFriend] })], source: stranger, allowed: false },
    { name: 'podSelector peer: the friend from another namespace', policies: [policy('p', { ingress: [fromFriend] })], source: friendElsewhere, allowed: false },
    { name: 'namespaceSelector peer admits any pod there', policies: [policy('p', { ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }] })], source: { ...stranger, namespace: 'apps' }, allowed: true },
    { name: 'namespaceSelector peer refuses other namespaces', policies: [policy('p', { ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }] })], source: stranger, allowed: false },
    { name: 'namespace by its automatic name label', policies: [policy('p', { ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'apps' } } }] }] })], source: friendElsewhere, allowed: true },
    { name: 'both selectors: the friend there', policies: [policy('p', { ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { role: 'controller' } } }] }] })], source: friendElsewhere, allowed: true },
    { name: 'both selectors: a stranger there', policies: [policy('p', { ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchLabels: { role: 'controller' } } }] }] })], source: { ...stranger, namespace: 'apps' }, allowed: false },
    { name: 'port by number: hit', policies: [policy('p', { ingress: [{ ...fromFriend, ports: [{ port: 8081 }] }] })], source: friend, allowed: true },
    { name: 'port by number: miss', policies: [policy('p', { ingress: [{ ...fromFriend, ports: [{ port: 8080 }] }] })], source: friend, allowed: false },
    { name: 'port by name: hit', policies: [policy('p', { ingress: [{ ...fromFriend, ports: [{ port: 'api' }] }] })], source: friend, allowed: true },
    { name: 'port by name: unknown name', policies: [policy('p', { ingress: [{ ...fromFriend, ports: [{ port: 'metrics' }] }] })], source: friend, allowed: false },
    { name: 'port range: inside', policies: [policy('p', { ingress: [{ ...fromFriend, ports: [{ port: 8000, endPort: 8100 }] }] })], source: friend, allowed: true },
    { name: 'port range: outside', policies: [policy('p', { ingress: [{ ...fromFriend, ports: [{ port: 8000, endPort: 8080 }] }] })], source: friend, allowed: false },
    { name: 'protocol: UDP rule, TCP connection', policies: [policy('p', { ingress: [{ ...fromFriend, ports: [{ protocol: 'UDP', port: 8081 }] }] })], source: friend, allowed: false },
    { name: 'protocol: UDP rule, UDP connection', policies: [policy('p', { ingress: [{ ...fromFriend, ports: [{ protocol: 'UDP', port: 'dns' }] }] })], source: friend, port: 53, protocol: 'UDP', allowed: true },
    { name: 'ipBlock: inside', policies: [policy('p', { ingress: [{ from: [{ ipBlock: { cidr: '10.9.0.0/16' } }] }] })], source: stranger, allowed: true },
    { name: 'ipBlock: in the exception', policies: [policy('p', { ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.9.0.0/16'] } }] }] })], source: stranger, allowed: false },
    { name: 'policies add up: one denies, another admits', policies: [policy('deny', {}), policy('allow', { ingress: [fromFriend] })], source: friend, allowed: true },
  ];
  it.each(cases)('$name', ({ policies, source, port, protocol, allowed, isolated }) => {
    const verdict = evaluateIngress(policies, server, source, port ?? 8081, { namespaceLabels: nsLabels, ...(protocol === undefined ? {} : { protocol }) });
    expect(verdict.allowed).toBe(allowed);
    if (isolated !== undefined) expect(verdict.isolated).toBe(isolated);
  });
});

/** The server pod a NetworkPolicy fences: the upstream Deployment's template, or our sample's Service. */
function serverFromDeployment(objects: readonly KubeObject[]): PodEndpoint {
  const deployment = only(objects, 'Deployment') as KubeObject & {
    spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: { ports?: { name?: string; containerPort: number }[] }[] } } };
  };
  return {
    namespace: deployment.metadata.namespace ?? '',
    labels: deployment.spec.template.metadata.labels,
    ports: deployment.spec.template.spec.containers.flatMap((c) => c.ports ?? []),
  };
}

function serverFromService(objects: readonly KubeObject[]): PodEndpoint {
  const service = only(objects, 'Service') as KubeObject & { spec: { selector: Record<string, string>; ports: { port: number; targetPort: string | number }[] } };
  return {
    namespace: service.metadata.namespace ?? '',
    labels: service.spec.selector,
    ports: service.spec.ports.map((p) => (typeof p.targetPort === 'string' ? { name: p.targetPort, containerPort: p.port } : { containerPort: p.targetPort })),
  };
}

const upstream = upstreamData();
const fences: { name: string; load: () => { policies: NetworkPolicy[]; server: PodEndpoint } | string }[] = [
  {
    name: 'the upstream NetworkPolicy',
    load: () => {
      if (upstream.dir === undefined) return upstream.missing;
      const dir = join(upstream.dir, 'config/server');
      return {
        policies: loadYamlFile(join(dir, 'networkpolicy.yaml')) as unknown as NetworkPolicy[],
        server: serverFromDeployment(loadYamlFile(join(dir, 'server.yaml'))),
      };
    },
  },
  {
    name: 'our sample NetworkPolicy',
    load: () => ({
      policies: loadManifests('install/40-server-networkpolicy.yaml') as unknown as NetworkPolicy[],
      server: serverFromService(loadManifests('install/30-server-service.yaml')),
    }),
  },
];

describe('our sample NetworkPolicy', () => {
  if (upstream.dir === undefined && upstream.mustFail) it('has the upstream data to compare with', () => expect.fail(upstream.missing));
  it.skipIf(upstream.dir === undefined)(`is upstream's, field for field${upstream.dir === undefined ? ` (skipped: ${upstream.missing})` : ''}`, () => {
    const ours = loadManifests('install/40-server-networkpolicy.yaml');
    const theirs = loadYamlFile(join(upstream.dir ?? '', 'config/server/networkpolicy.yaml'));
    const essentials = (objects: readonly KubeObject[]) => objects.map(({ kind, metadata, spec }) => ({ kind, name: metadata.name, namespace: metadata.namespace, spec }));
    expect(essentials(ours)).toEqual(essentials(theirs));
  });
});

for (const helm of helmBinaries()) {
  const skip = skipReason(helm);
  describe.skipIf(skip !== '')(`the rendered doctor pod behind the server's NetworkPolicy (${helm.name})${skip === '' ? '' : ` (skipped: ${skip})`}`, () => {
    const doctor = (namespace: string, values?: Record<string, unknown>): PodEndpoint => {
      const pod = only(helmTemplate(helm, { namespace, ...(values === undefined ? {} : { values }) }), 'Pod');
      return { namespace: pod.metadata.namespace ?? '', labels: pod.metadata.labels ?? {} };
    };
    describe.each(fences)('$name', ({ load }) => {
      const loaded = load();
      const fence = typeof loaded === 'string' ? undefined : loaded;
      const why = typeof loaded === 'string' ? loaded : '';
      if (fence === undefined && upstream.mustFail) it('has its data', () => expect.fail(why));
      it.skipIf(fence === undefined)(`admits it to TCP 8081 from the server namespace${fence === undefined ? ` (skipped: ${why})` : ''}`, () => {
        const f = fence as NonNullable<typeof fence>;
        const verdict = evaluateIngress(f.policies, f.server, doctor(f.server.namespace), 8081);
        expect(verdict).toMatchObject({ allowed: true, isolated: true, admittedBy: ['inference-cache-server-snapshot'] });
      });
      it.skipIf(fence === undefined)('refuses it from another namespace, and without the controller labels', () => {
        const f = fence as NonNullable<typeof fence>;
        expect(evaluateIngress(f.policies, f.server, doctor('tools'), 8081).allowed).toBe(false);
        const serverLabelled = doctor(f.server.namespace, { controller: { labels: { 'app.kubernetes.io/component': 'server' } } });
        expect(evaluateIngress(f.policies, f.server, serverLabelled, 8081).allowed).toBe(false);
        expect(evaluateIngress(f.policies, f.server, { ...serverLabelled, namespace: 'tools' }, 9090).allowed).toBe(true);
      });
    });
  });
}
