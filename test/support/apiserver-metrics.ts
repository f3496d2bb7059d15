// Where the API server answered LIST requests from, by its own metrics: its watch cache
// (apiserver_cache_list_total) or etcd (apiserver_storage_list_total), by resource, so that a test can
// look at the resources a run lists and leave aside the lists of other clients.
import { apiRequest } from '../../dev/cluster/controlplane.ts';

/** The API server and an identity allowed to read its /metrics. */
export interface MetricsTarget {
  readonly server: string;
  readonly caFile: string;
  readonly token: string;
}

/** LIST requests answered so far, by resource (plural name), from the watch cache and from etcd. */
export interface ListSources {
  readonly cache: Readonly<Record<string, number>>;
  readonly etcd: Readonly<Record<string, number>>;
}

/** The samples of counter `name`, summed by their `resource` label. */
function byResource(text: string, name: string): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const resource = /[{,]resource="([^"]*)"/.exec(line)?.[1] ?? '';
    sums[resource] = (sums[resource] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sums;
}

/** Reads the API server's LIST counters. */
export async function listSources(target: MetricsTarget): Promise<ListSources> {
  const res = await apiRequest(target.server, target.caFile, target.token, 'GET', '/metrics', undefined, { accept: 'text/plain' });
  if (res.status !== 200) throw new Error(`GET /metrics of the API server: ${res.status}`);
  return { cache: byResource(res.body, 'apiserver_cache_list_total'), etcd: byResource(res.body, 'apiserver_storage_list_total') };
}

/** What was answered between `earlier` and `later`, for `resources` only (0 for one never listed). */
export function listedBetween(earlier: ListSources, later: ListSources, resources: Iterable<string>): ListSources {
  const cache: Record<string, number> = {};
  const etcd: Record<string, number> = {};
  for (const r of resources) {
    cache[r] = (later.cache[r] ?? 0) - (earlier.cache[r] ?? 0);
    etcd[r] = (later.etcd[r] ?? 0) - (earlier.etcd[r] ?? 0);
  }
  return { cache, etcd };
}
