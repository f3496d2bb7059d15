/**
 * Cluster DNS for container processes. There is no CoreDNS here, so the stand-in gives each Node
 * child process a preload (`dns-preload.mjs`, passed with `NODE_OPTIONS=--import=...`) that answers
 * Service names from a table and applies the pod's search path the way the resolver of a
 * `ClusterFirst` pod does (`<ns>.svc.<domain> svc.<domain> <domain>`, ndots 5). Names outside the
 * cluster domain are left to the real resolver; unknown names inside it fail with ENOTFOUND, as
 * cluster DNS answers NXDOMAIN. Nothing is needed in the pod spec.
 *
 * @module
 */

import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Pod } from './types.ts';

/** Environment variable carrying the preload's configuration (JSON). */
export const DNS_CONFIG_ENV = 'INFERENCECACHE_STANDIN_DNS';
/** The preload module. */
export const DNS_PRELOAD = path.join(import.meta.dirname, 'dns-preload.mjs');

/** What the preload needs: fully qualified names to addresses, the search list, ndots. */
export interface DnsConfig {
  readonly hosts: Readonly<Record<string, string>>;
  readonly search: readonly string[];
  readonly ndots: number;
  readonly clusterDomain: string;
}

/**
 * The stand-in's `hosts` option as fully qualified names: `svc.ns` → `svc.ns.svc.<domain>`,
 * `svc.ns.svc` → `svc.ns.svc.<domain>`; a key already under the domain, or with three or more labels
 * otherwise, is taken as written.
 */
export function qualifyHosts(hosts: Readonly<Record<string, string>>, clusterDomain: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, address] of Object.entries(hosts)) {
    const name = key.toLowerCase().replace(/\.$/, '');
    let fqdn = name;
    if (name.endsWith(`.svc.${clusterDomain}`)) fqdn = name;
    else if (name.endsWith('.svc')) fqdn = `${name}.${clusterDomain}`;
    else if (name.split('.').length === 2) fqdn = `${name}.svc.${clusterDomain}`;
    out[fqdn] = address;
  }
  return out;
}

/** The resolver configuration of a pod, or undefined when its DNS policy gives it no cluster DNS. */
export function podDnsConfig(pod: Pod, hosts: Readonly<Record<string, string>>, clusterDomain: string): DnsConfig | undefined {
  const policy = pod.spec.dnsPolicy ?? 'ClusterFirst';
  if (policy === 'Default') return undefined;
  const namespace = pod.metadata.namespace ?? 'default';
  const clusterSearch = policy === 'None' ? [] : [`${namespace}.svc.${clusterDomain}`, `svc.${clusterDomain}`, clusterDomain];
  const ndotsOption = pod.spec.dnsConfig?.options?.find((o) => o.name === 'ndots')?.value;
  const ndots = ndotsOption === undefined ? 5 : Number.parseInt(ndotsOption, 10);
  return {
    hosts: qualifyHosts(hosts, clusterDomain),
    search: [...clusterSearch, ...(pod.spec.dnsConfig?.searches ?? [])],
    ndots: Number.isFinite(ndots) ? ndots : 5,
    clusterDomain,
  };
}

/** The env entries that install the preload, appended to whatever NODE_OPTIONS the container sets. */
export function dnsEnv(config: DnsConfig, nodeOptions: string | undefined): Record<string, string> {
  const flag = `--import=${pathToFileURL(DNS_PRELOAD).href}`;
  return {
    [DNS_CONFIG_ENV]: JSON.stringify(config),
    NODE_OPTIONS: nodeOptions === undefined || nodeOptions === '' ? flag : `${nodeOptions} ${flag}`,
  };
}
