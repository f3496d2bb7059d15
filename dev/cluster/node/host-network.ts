/**
 * What the real node changes in the machine's network, and how it is put back: the bridge that holds
 * the node's address and the pods' gateway, two sysctls, the guard chain that keeps pod traffic inside the machine, and, at teardown,
 * whatever iptables chains, ipsets, network namespaces and interfaces the cluster's components made.
 *
 * Everything is recorded before it is changed (a {@link HostNetworkRecord}, kept in the cluster's state
 * file) so `cluster:down` in another process restores exactly that and removes only what did not exist
 * before.
 *
 * @module
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { BRIDGE, GUARD_CHAIN, NODE_IP, POD_CIDR, POD_GATEWAY } from './addresses.ts';

/** Tables the cluster's components write rules into. */
const TABLES = ['filter', 'nat', 'mangle', 'raw'] as const;
/** The two iptables families: the kubelet writes its canaries and firewall chains into both. */
const FAMILIES = [
  { name: 'ip', save: 'iptables-save', restore: 'iptables-restore' },
  { name: 'ip6', save: 'ip6tables-save', restore: 'ip6tables-restore' },
] as const;
type Family = (typeof FAMILIES)[number];
/** Chains made by kube-proxy, the kubelet, kube-router, the CNI plugins, or this module. */
export const OWN_CHAIN = /^(KUBE-|ICD-|CNI-)/;
/** The sysctls the node needs: routing between the bridge and the node, and iptables on bridged frames. */
const SYSCTLS = ['net/ipv4/ip_forward', 'net/bridge/bridge-nf-call-iptables'] as const;

/** What existed before the node started: restored or spared at teardown. */
export interface HostNetworkRecord {
  /** sysctl path (under /proc/sys) → its value before. */
  readonly sysctls: Record<string, string>;
  /** nf_tables tables (`ip filter`, `ip6 nat`, …) that existed before. */
  readonly tables: readonly string[];
  /** `family/table/chain` of every chain that existed before (family `ip` or `ip6`). */
  readonly chains: readonly string[];
  readonly ipsets: readonly string[];
  readonly netns: readonly string[];
  readonly links: readonly string[];
}

function run(cmd: string, args: readonly string[], input?: string): string {
  return execFileSync(cmd, args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs and reports failure instead of throwing (teardown goes on whatever one step says). */
function tryRun(cmd: string, args: readonly string[], input?: string): string | undefined {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input });
  return r.status === 0 ? r.stdout : undefined;
}

/**
 * The nf_tables tables (`ip filter`, …). Read with nft: iptables' nf_tables flavour creates a table
 * when it is merely listed, so only tables that exist are listed with it.
 */
export function tables(): string[] {
  return (tryRun('nft', ['list', 'tables']) ?? '')
    .split('\n')
    .map((l) => /^table (\S+) (\S+)$/.exec(l.trim()))
    .flatMap((m) => (m === null ? [] : [`${m[1] ?? ''} ${m[2] ?? ''}`]));
}

/** Tables of a family that exist, of those the cluster writes. */
function existing(family: Family): string[] {
  const present = new Set(tables());
  return TABLES.filter((t) => present.has(`${family.name} ${t}`));
}

/** Every iptables chain, as `family/table/chain`, of the tables the cluster writes that exist. */
export function chains(): string[] {
  return FAMILIES.flatMap((family) =>
    existing(family).flatMap((table) =>
      (tryRun(family.save, ['-t', table]) ?? '')
        .split('\n')
        .filter((l) => l.startsWith(':'))
        .map((l) => `${family.name}/${table}/${l.slice(1).split(' ')[0] ?? ''}`),
    ),
  );
}

/** Names of the ipsets (empty when the ipset tool is missing). */
export function ipsets(): string[] {
  return (tryRun('ipset', ['list', '-n']) ?? '').split('\n').filter((l) => l !== '');
}

/** Named network namespaces (`ip netns`' folder; CNI plugins and containerd make theirs there). */
export function netns(): string[] {
  return existsSync('/var/run/netns') ? readdirSync('/var/run/netns') : [];
}

/** Names of the network interfaces. */
export function links(): string[] {
  return readdirSync('/sys/class/net');
}

/** Records the machine's network before the node changes it. */
export function recordHostNetwork(): HostNetworkRecord {
  return {
    sysctls: Object.fromEntries(SYSCTLS.map((s) => [s, readFileSync(`/proc/sys/${s}`, 'utf8').trim()])),
    tables: tables(),
    chains: chains(),
    ipsets: ipsets(),
    netns: netns(),
    links: links(),
  };
}

/**
 * Adds the bridge with the node's address and the pods' gateway, switches the sysctls on, and adds the guard: in mangle
 * FORWARD (before any filter rule the cluster's components insert), pod traffic to or from anything
 * but another pod is dropped. Service traffic is already translated there (a pod address, or the
 * node's own address, which is local and never forwarded).
 */
export function setUpHostNetwork(): void {
  if (!links().includes(BRIDGE)) {
    run('ip', ['link', 'add', BRIDGE, 'type', 'bridge']);
    run('ip', ['addr', 'add', `${POD_GATEWAY}/${POD_CIDR.split('/')[1] ?? '24'}`, 'dev', BRIDGE]);
    run('ip', ['addr', 'add', `${NODE_IP}/32`, 'dev', BRIDGE]);
    run('ip', ['link', 'set', BRIDGE, 'up']);
  }
  for (const s of SYSCTLS) writeFileSync(`/proc/sys/${s}`, '1');
  if (!chains().includes(`ip/mangle/${GUARD_CHAIN}`)) {
    run(
      'iptables-restore',
      ['--noflush'],
      [
        '*mangle',
        `:${GUARD_CHAIN} - [0:0]`,
        `-A ${GUARD_CHAIN} -s ${POD_CIDR} -d ${POD_CIDR} -j RETURN`,
        `-A ${GUARD_CHAIN} -s ${POD_CIDR} -m comment --comment "pods reach only pods, Services and the node" -j DROP`,
        `-A ${GUARD_CHAIN} -d ${POD_CIDR} -m comment --comment "only the node and pods reach pods" -j DROP`,
        `-I FORWARD 1 -j ${GUARD_CHAIN}`,
        'COMMIT',
        '',
      ].join('\n'),
    );
  }
}

/** The iptables-restore input (for `family`) that deletes every chain the cluster made and every jump into one. */
export function iptablesCleanup(family: Family, before: ReadonlySet<string>): string {
  const out: string[] = [];
  for (const table of existing(family)) {
    const saved = (tryRun(family.save, ['-t', table]) ?? '').split('\n');
    const made = saved
      .filter((l) => l.startsWith(':'))
      .map((l) => l.slice(1).split(' ')[0] ?? '')
      .filter((c) => OWN_CHAIN.test(c) && !before.has(`${family.name}/${table}/${c}`));
    if (made.length === 0) continue;
    const ours = new Set(made);
    const jumps = saved.filter((l) => {
      const m = /^-A (\S+) .*-j (\S+)/.exec(l);
      return m !== null && !ours.has(m[1] ?? '') && ours.has(m[2] ?? '');
    });
    out.push(`*${table}`, ...jumps.map((l) => `-D${l.slice(2)}`), ...made.map((c) => `-F ${c}`), ...made.map((c) => `-X ${c}`), 'COMMIT');
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** Puts back the record: removes what was made since, restores the sysctls. Returns what it could not undo. */
export function tearDownHostNetwork(record: HostNetworkRecord): string[] {
  const problems: string[] = [];
  for (const family of FAMILIES) {
    const cleanup = iptablesCleanup(family, new Set(record.chains));
    if (cleanup !== '' && tryRun(family.restore, ['--noflush'], cleanup) === undefined)
      problems.push(`${family.restore} of the cleanup failed:\n${cleanup}`);
  }
  // iptables' nf_tables flavour creates a table on first use and never removes it: remove those that
  // did not exist before and now hold no rule.
  for (const table of tables().filter((t) => !record.tables.includes(t))) {
    const [family = '', name = ''] = table.split(' ');
    const save = FAMILIES.find((f) => f.name === family)?.save;
    const rules = save === undefined ? [] : (tryRun(save, ['-t', name]) ?? '').split('\n').filter((l) => l.startsWith('-A '));
    if (rules.length === 0 && tryRun('nft', ['delete', 'table', family, name]) === undefined)
      problems.push(`the empty table ${table} could not be removed`);
  }
  for (const set of ipsets().filter((s) => !record.ipsets.includes(s)))
    if (tryRun('ipset', ['destroy', set]) === undefined) problems.push(`ipset ${set} could not be destroyed`);
  for (const ns of netns().filter((n) => !record.netns.includes(n)))
    if (tryRun('ip', ['netns', 'delete', ns]) === undefined) problems.push(`network namespace ${ns} could not be deleted`);
  if (links().includes(BRIDGE) && !record.links.includes(BRIDGE) && tryRun('ip', ['link', 'delete', BRIDGE]) === undefined)
    problems.push(`interface ${BRIDGE} could not be deleted`);
  for (const [s, value] of Object.entries(record.sysctls)) writeFileSync(`/proc/sys/${s}`, value);
  return problems;
}

/** What the cluster left in the machine's network compared with the record (empty when nothing). */
export function networkLeftovers(record: HostNetworkRecord): string[] {
  const before = new Set(record.chains);
  return [
    ...tables()
      .filter((t) => !record.tables.includes(t))
      .map((t) => `nf_tables table ${t}`),
    ...chains()
      .filter((c) => !before.has(c))
      .map((c) => `iptables chain ${c}`),
    ...ipsets()
      .filter((s) => !record.ipsets.includes(s))
      .map((s) => `ipset ${s}`),
    ...netns()
      .filter((n) => !record.netns.includes(n))
      .map((n) => `network namespace ${n}`),
    ...links()
      .filter((l) => !record.links.includes(l))
      .map((l) => `interface ${l}`),
    ...Object.entries(record.sysctls)
      .filter(([s, v]) => readFileSync(`/proc/sys/${s}`, 'utf8').trim() !== v)
      .map(([s, v]) => `sysctl ${s} is not back to ${v}`),
  ];
}
