/**
 * The addresses of the real node's cluster. Every one of them exists only inside this machine: the node
 * address and the pods' gateway on the CNI bridge, pod addresses in the pods' network namespaces,
 * Service addresses only in kube-proxy's NAT rules. Nothing is masqueraded and a guard chain drops pod
 * traffic to or from anything else, so nothing routes outside. The README names these ranges.
 *
 * @module
 */

/**
 * The node's InternalIP, which kube-apiserver binds too. It sits on the bridge (this machine's kernel
 * has no dummy interfaces), outside the pod range, so no pod can be given it.
 */
export const NODE_IP = '10.243.0.1';
/** Pod addresses: the CNI bridge's subnet. */
export const POD_CIDR = '10.244.0.0/24';
/** The pods' gateway on the bridge. */
export const POD_GATEWAY = '10.244.0.1';
/** The bridge of the pods' veths, made before the node starts so the node address exists; the CNI plugin adopts it. */
export const BRIDGE = 'icd-cni0';
/** Service ClusterIPs (kube-apiserver's and kube-controller-manager's `--service-cluster-ip-range`). */
export const SERVICE_CIDR = '10.96.0.0/16';
/** The `kubernetes` Service's ClusterIP (the first of the range). */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';
/** The cluster DNS Service's ClusterIP (the kubelet's `clusterDNS`). */
export const DNS_SERVICE_IP = '10.96.0.10';
/** The cluster domain. */
export const CLUSTER_DOMAIN = 'cluster.local';
/** The iptables chain (mangle table) that keeps pod traffic inside the machine. */
export const GUARD_CHAIN = 'ICD-POD-GUARD';
/** The one node's name. */
export const NODE_NAME = 'icd-node';
