// Cluster DNS for a container process run by the kubelet stand-in (test support, never shipped).
// Loaded with NODE_OPTIONS=--import=<this file>; configured by the JSON in INFERENCECACHE_STANDIN_DNS
// ({ hosts: { fqdn: address }, search: [...], ndots, clusterDomain }), which the stand-in writes.
//
// It wraps the name lookups Node programs actually use:
//   - dns.lookup (net.connect and therefore undici use it), its promisified form, and
//     dns.promises.lookup (@grpc/grpc-js's DNS resolver calls dns.promises.lookup(host, { all: true }));
//   - resolve4 / resolve6 / resolveTxt, module-level and on both Resolver classes (grpc-js asks for
//     TXT service config, and for A/AAAA with GRPC_NODE_USE_ALTERNATIVE_RESOLVER).
// lookup applies the search list like a resolv.conf with `ndots`; resolve* take the name as absolute,
// as c-ares queries do. Names under the cluster domain that the table lacks fail with ENOTFOUND;
// everything else goes to the original functions untouched.
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { promisify } from 'node:util';

const raw = process.env.INFERENCECACHE_STANDIN_DNS;
if (raw !== undefined && raw !== '') install(JSON.parse(raw));

/** @param {string} code @param {string} syscall @param {string} hostname */
function dnsError(code, syscall, hostname) {
  const err = new Error(`${syscall} ${code} ${hostname}`);
  return Object.assign(err, { code, errno: undefined, syscall, hostname });
}

/** @param {{ hosts: Record<string,string>, search: string[], ndots: number, clusterDomain: string }} cfg */
function install(cfg) {
  const domain = cfg.clusterDomain.toLowerCase();
  const inCluster = (/** @type {string} */ name) => name === domain || name.endsWith(`.${domain}`);

  /** The answer for a lookup with the search list: an address, 'nx' (cluster NXDOMAIN), or null (not ours). */
  const searchName = (/** @type {unknown} */ hostname) => {
    if (typeof hostname !== 'string' || hostname === '' || net.isIP(hostname) !== 0) return null;
    const lower = hostname.toLowerCase();
    const absolute = lower.endsWith('.');
    const bare = absolute ? lower.slice(0, -1) : lower;
    const dots = bare.split('.').length - 1;
    const searched = cfg.search.map((s) => `${bare}.${s.toLowerCase()}`);
    const candidates = absolute ? [bare] : dots >= cfg.ndots ? [bare, ...searched] : [...searched, bare];
    for (const candidate of candidates) {
      const address = cfg.hosts[candidate];
      if (address !== undefined) return address;
    }
    return inCluster(bare) ? 'nx' : null;
  };

  /** The answer for a query (no search list; `<svc>.<ns>.svc` is a cluster name that exists only with one). */
  const exactName = (/** @type {unknown} */ hostname) => {
    if (typeof hostname !== 'string' || hostname === '') return null;
    const bare = hostname.toLowerCase().replace(/\.$/, '');
    const address = cfg.hosts[bare];
    if (address !== undefined) return address;
    return inCluster(bare) || bare.endsWith('.svc') ? 'nx' : null;
  };

  const familyOf = (/** @type {unknown} */ family) => (family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : Number(family ?? 0));

  /** Resolves a lookup we own to { address, family } records, or throws ENOTFOUND. */
  const answer = (/** @type {string} */ hostname, /** @type {string} */ found, /** @type {any} */ options) => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    const family = net.isIP(found);
    const wanted = familyOf(opts.family);
    if (found === 'nx' || (wanted !== 0 && wanted !== family)) throw dnsError('ENOTFOUND', 'getaddrinfo', hostname);
    return { all: opts.all === true, records: [{ address: found, family }] };
  };

  const originalLookup = dns.lookup;
  const originalPromiseLookup = dnsPromises.lookup;

  /** @type {any} */
  const lookup = function lookup(/** @type {any} */ hostname, /** @type {any} */ options, /** @type {any} */ callback) {
    const found = searchName(hostname);
    if (found === null)
      return Reflect.apply(
        originalLookup,
        dns,
        [hostname, options, callback].filter((a) => a !== undefined),
      );
    const cb = typeof options === 'function' ? options : callback;
    const opts = typeof options === 'function' ? undefined : options;
    process.nextTick(() => {
      try {
        const { all, records } = answer(hostname, found, opts);
        if (all) cb(null, records);
        else cb(null, records[0]?.address, records[0]?.family);
      } catch (err) {
        cb(err);
      }
    });
    return {};
  };
  const promiseLookup = async function lookup(/** @type {any} */ hostname, /** @type {any} */ options) {
    const found = searchName(hostname);
    if (found === null) return Reflect.apply(originalPromiseLookup, dnsPromises, options === undefined ? [hostname] : [hostname, options]);
    const { all, records } = answer(hostname, found, options);
    return all ? records : records[0];
  };
  lookup[promisify.custom] = promiseLookup;

  dns.lookup = lookup;
  dnsPromises.lookup = promiseLookup;
  if (dns.promises !== dnsPromises) dns.promises.lookup = promiseLookup;

  /** What a query for `rrtype` answers for a name we own. */
  const query = (/** @type {string} */ rrtype, /** @type {string} */ hostname, /** @type {string} */ found, /** @type {any} */ options) => {
    const syscall = `query${rrtype}`;
    if (found === 'nx') throw dnsError('ENOTFOUND', syscall, hostname);
    const family = net.isIP(found);
    if ((rrtype === 'A' && family !== 4) || (rrtype === 'Aaaa' && family !== 6) || rrtype === 'Txt')
      throw dnsError('ENODATA', syscall, hostname);
    return options?.ttl === true ? [{ address: found, ttl: 30 }] : [found];
  };

  const methods = /** @type {const} */ ([
    ['resolve4', 'A'],
    ['resolve6', 'Aaaa'],
    ['resolveTxt', 'Txt'],
  ]);
  for (const [method, rrtype] of methods) {
    /** Wraps a callback-style resolve method of `target`. */
    const wrapCallback = (/** @type {any} */ target) => {
      const original = target[method];
      if (typeof original !== 'function') return;
      target[method] = function (/** @type {any[]} */ ...args) {
        const hostname = args[0];
        const found = exactName(hostname);
        if (found === null) return Reflect.apply(original, this, args);
        const cb = args[args.length - 1];
        const options = args.length > 2 ? args[1] : undefined;
        process.nextTick(() => {
          try {
            cb(null, query(rrtype, hostname, found, options));
          } catch (err) {
            cb(err);
          }
        });
        return {};
      };
    };
    /** Wraps a promise-style resolve method of `target`. */
    const wrapPromise = (/** @type {any} */ target) => {
      const original = target[method];
      if (typeof original !== 'function') return;
      target[method] = async function (/** @type {any[]} */ ...args) {
        const found = exactName(args[0]);
        if (found === null) return Reflect.apply(original, this, args);
        return query(rrtype, args[0], found, args[1]);
      };
    };
    wrapCallback(dns);
    wrapCallback(dns.Resolver.prototype);
    wrapPromise(dnsPromises);
    if (dns.promises !== dnsPromises) wrapPromise(dns.promises);
    wrapPromise(dnsPromises.Resolver.prototype);
  }
  syncBuiltinESMExports();
}
