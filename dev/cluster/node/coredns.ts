/**
 * The cluster DNS: CoreDNS as a Deployment behind the `kube-dns` Service, so a pod's lookups go through
 * a real Service address, kube-proxy's rules and a real DNS server.
 *
 * CoreDNS serves only the cluster domain and the reverse zones of the pod and Service ranges; it has
 * no `forward` plugin, so no query ever leaves the machine (other names are refused).
 *
 * @module
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { KubeObject } from '../manifests.ts';
import { CLUSTER_DOMAIN, DNS_SERVICE_IP } from './addresses.ts';
import { IMAGES } from '../images.ts';

const DNS_LABELS = { 'k8s-app': 'kube-dns' };
/** CoreDNS runs as 65532 without capabilities, so it listens above 1024; the Service maps 53 to it. */
const DNS_PORT = 1053;

const COREFILE = `.:${DNS_PORT} {
    errors
    health :8080
    ready :8181
    cache 5
    kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
        pods insecure
        ttl 5
    }
}
`;

/** CoreDNS: ServiceAccount, its read access, the Corefile, the Deployment and the `kube-dns` Service. */
export function coreDnsObjects(): KubeObject[] {
  const ns = 'kube-system';
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'icd:coredns' },
      rules: [
        { apiGroups: [''], resources: ['services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'icd:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'icd:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: ns }],
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: ns }, data: { Corefile: COREFILE } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace: ns, labels: DNS_LABELS },
      spec: {
        replicas: 1,
        selector: { matchLabels: DNS_LABELS },
        template: {
          metadata: { labels: DNS_LABELS },
          spec: {
            serviceAccountName: 'coredns',
            dnsPolicy: 'Default',
            containers: [
              {
                name: 'coredns',
                image: IMAGES.coredns,
                imagePullPolicy: 'Never',
                args: ['-conf', '/etc/coredns/Corefile'],
                ports: [
                  { name: 'dns', containerPort: DNS_PORT, protocol: 'UDP' },
                  { name: 'dns-tcp', containerPort: DNS_PORT, protocol: 'TCP' },
                ],
                securityContext: {
                  runAsNonRoot: true,
                  runAsUser: 65532,
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ['ALL'] },
                },
                readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 2 },
                livenessProbe: { httpGet: { path: '/health', port: 8080 }, periodSeconds: 10 },
                volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }],
              },
            ],
            volumes: [{ name: 'config', configMap: { name: 'coredns' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kube-dns', namespace: ns, labels: DNS_LABELS },
      spec: {
        clusterIP: DNS_SERVICE_IP,
        selector: DNS_LABELS,
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: DNS_PORT },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: DNS_PORT },
        ],
      },
    },
  ];
}

/** The label selector of the CoreDNS pods, in the namespace `kube-system`. */
export const COREDNS_SELECTOR = 'k8s-app=kube-dns';

/** Whether CoreDNS serves: `true` once a pod is Ready, else what its pods are doing. */
export function coreDnsReady(pods: readonly V1Pod[]): true | string {
  const ready = pods.some((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  return ready || `CoreDNS pods: ${pods.map((p) => `${p.metadata?.name ?? '?'} ${p.status?.phase ?? '?'}`).join(', ') || 'none yet'}`;
}
