/**
 * Reading and checking the certificate the server's gRPC port presents: the facts a finding names
 * (subject, names, validity), and whether the chain leads to a trusted authority, judged apart from
 * the validity dates, which the check judges against the run's clock.
 *
 * @module
 */

import { X509Certificate } from 'node:crypto';
import { MAX_NAMES_KEPT, type CertificateFacts } from './results.ts';

/** The longest subject or issuer a report keeps; a name longer than this is cut with `…`. */
const MAX_DN_LENGTH = 256;
/** The longest single DNS name (RFC 1035 allows 253). */
const MAX_NAME_LENGTH = 253;
/** The longest chain followed from the leaf to an anchor. */
const MAX_CHAIN_DEPTH = 8;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A distinguished name as Node prints it (one attribute per line) on one line. An empty name comes
 * back as undefined, whatever the typings say.
 */
function distinguishedName(text: string | undefined): string {
  return cut(
    (text ?? '')
      .split('\n')
      .filter((part) => part !== '')
      .join(', '),
    MAX_DN_LENGTH,
  );
}

/**
 * The entries of Node's subjectAltName string (`DNS:a, IP Address:10.0.0.1`). Node writes a value that
 * holds a comma or a quote as a JSON string, so such values cannot split an entry.
 */
export function subjectAltNames(text: string | undefined): { readonly type: string; readonly value: string }[] {
  const entries: { type: string; value: string }[] = [];
  const entry = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/y;
  let match: RegExpExecArray | null;
  while (text !== undefined && entry.lastIndex < text.length && (match = entry.exec(text)) !== null) {
    const [, type = '', raw = ''] = match;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string;
      } catch {
        value = raw;
      }
    }
    entries.push({ type, value });
  }
  return entries;
}

/** The facts of a certificate that a finding shows, bounded in size. */
export function certificateFacts(cert: X509Certificate): CertificateFacts {
  const names = subjectAltNames(cert.subjectAltName);
  const dns = names.filter((n) => n.type === 'DNS').map((n) => cut(n.value, MAX_NAME_LENGTH));
  const ips = names.filter((n) => n.type === 'IP Address').map((n) => cut(n.value, MAX_NAME_LENGTH));
  const omitted = Math.max(0, dns.length - MAX_NAMES_KEPT) + Math.max(0, ips.length - MAX_NAMES_KEPT);
  return {
    subject: distinguishedName(cert.subject),
    issuer: distinguishedName(cert.issuer),
    dnsNames: dns.slice(0, MAX_NAMES_KEPT),
    ipAddresses: ips.slice(0, MAX_NAMES_KEPT),
    ...(omitted > 0 ? { namesOmitted: dns.length + ips.length } : {}),
    notBefore: cert.validFromDate.toISOString(),
    notAfter: cert.validToDate.toISOString(),
  };
}

/** The certificates of a PEM bundle, in order; throws when it holds none or one is malformed. */
export function parsePemBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('no PEM certificate in it');
  return blocks.map((block) => new X509Certificate(block));
}

/** Whether `issuer` signed `cert`: names chain and the signature verifies with its key. */
function signedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/**
 * Whether the presented chain (leaf first) leads to one of `anchors`, ignoring validity dates: the leaf
 * itself is an anchor (a self-signed leaf whose `ca.crt` is itself), or an anchor signed it, or a
 * presented CA certificate that leads there did. Used only when OpenSSL's own verdict was about dates,
 * so that an expired certificate from the right CA is reported as expired and nothing else.
 */
export function chainLeadsTo(chain: readonly X509Certificate[], anchors: readonly X509Certificate[]): boolean {
  const [leaf, ...presented] = chain;
  if (leaf === undefined) return false;
  if (anchors.some((a) => a.fingerprint256 === leaf.fingerprint256)) return true;
  let current = leaf;
  for (let depth = 0; depth < MAX_CHAIN_DEPTH; depth++) {
    if (anchors.some((a) => signedBy(current, a))) return true;
    const next = presented.find((c) => c !== current && c.ca && signedBy(current, c));
    if (next === undefined) return false;
    current = next;
  }
  return false;
}
