/**
 * Pod IPs. By default every pod gets the node's address (127.0.0.1), which is where its processes
 * really listen. EndpointSlice validation refuses loopback addresses, though, so a suite that wants
 * to see pods in EndpointSlices gives the stand-in a pod CIDR: each pod then gets its own address
 * from it, as on a real node (nothing listens there; it is bookkeeping for the control plane).
 *
 * @module
 */

/** Hands out pod IPs by pod uid. */
export interface PodIpAllocator {
  allocate(uid: string): string;
  release(uid: string): void;
}

function parseIPv4(text: string): number {
  const parts = text.split('.').map((p) => Number.parseInt(p, 10));
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`not an IPv4 address: ${text}`);
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

function formatIPv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** An allocator over an IPv4 CIDR (first usable address .1 is left out, like a bridge gateway), or the host address for all. */
export function podIpAllocator(hostIP: string, cidr: string | undefined): PodIpAllocator {
  if (cidr === undefined) return { allocate: () => hostIP, release: () => undefined };
  const [base, bitsText] = cidr.split('/');
  const bits = Number.parseInt(bitsText ?? '', 10);
  if (base === undefined || !Number.isInteger(bits) || bits < 8 || bits > 30) throw new Error(`unsupported pod CIDR: ${cidr}`);
  const size = 2 ** (32 - bits);
  const network = parseIPv4(base) - (parseIPv4(base) % size);
  const byUid = new Map<string, string>();
  const used = new Set<number>();
  return {
    allocate(uid) {
      const existing = byUid.get(uid);
      if (existing !== undefined) return existing;
      for (let host = 2; host < size - 1; host++) {
        if (used.has(host)) continue;
        used.add(host);
        const ip = formatIPv4(network + host);
        byUid.set(uid, ip);
        return ip;
      }
      throw new Error(`pod CIDR ${cidr} is exhausted`);
    },
    release(uid) {
      const ip = byUid.get(uid);
      if (ip === undefined) return;
      byUid.delete(uid);
      used.delete(parseIPv4(ip) - network);
    },
  };
}
