/**
 * ServerTLS: what the server's gRPC port speaks against what the doctor was told (`--server-tls`),
 * and, over TLS, the certificate: its authority, its name, its dates, and a session the server
 * refused. Upstream's doctor cannot probe a TLS port at all; ServerReachability keeps upstream's three
 * health codes and says only that the health call could not be made.
 *
 * @module
 */

import { defineCheck, type CodeDeclaration, type EmitFor } from './check.ts';
import type { Finding } from '../report/finding.ts';
import type { CertificateFacts, ServerTransport, TrustAnchor } from '../probes/results.ts';

const CA_FLAGS = '--server-ca-file (the chart: serverTLS.enabled mounts ca.crt from the Secret inference-cache-server-tls)';

const CODES = {
  TL001: {
    status: 'FAIL',
    meaning: "The server's gRPC port speaks TLS and the doctor has no CA that its certificate leads to.",
    hint: `Give the doctor the CA that issued the server's certificate: ${CA_FLAGS}. With no CA file the system roots are tried, which a cluster-internal certificate never leads to.`,
  },
  TL002: {
    status: 'FAIL',
    meaning: "The server's certificate does not lead to the CA given with --server-ca-file (unknown authority).",
    hint: "Give the CA that issued the server's current certificate. With cert-manager's self-signed Issuer, ca.crt is the leaf itself and changes at every renewal, so a copy goes stale: mount it from the Secret, or issue from a CA Issuer whose root stays.",
  },
  TL003: {
    status: 'FAIL',
    meaning: "The server's certificate does not carry the name the doctor verified (the Service DNS name, or --server-name).",
    hint: "Add the name clients dial (inference-cache-server.<namespace>.svc) to the Certificate's dnsNames, or pass --server-name with a name the certificate carries.",
  },
  TL004: {
    status: 'FAIL',
    meaning: "The server's certificate has expired: every verifying client refuses it.",
    hint: 'Renew it. With cert-manager, the Certificate inference-cache-server-serving-cert and its latest CertificateRequest say why renewal failed; the server re-reads the Secret when it changes.',
  },
  TL005: {
    status: 'FAIL',
    meaning: "The server's certificate is not valid yet: its NotBefore is later than the doctor's clock.",
    hint: 'Compare the clocks of the node the doctor ran on and of the issuer; a certificate issued with a future start is refused until then.',
  },
  TL006: {
    status: 'WARN',
    meaning: "The server's certificate expires within 14 days.",
    hint: "cert-manager renews at two thirds of a certificate's lifetime unless told otherwise, so a certificate this close to its end usually means renewal is failing: read the Certificate's conditions and its issuer's.",
  },
  TL007: {
    status: 'FAIL',
    meaning: 'The gRPC port speaks TLS, and --server-tls off made the doctor speak plaintext to it.',
    hint: `Drop --server-tls off (auto detects TLS) and give ${CA_FLAGS}.`,
  },
  TL008: {
    status: 'FAIL',
    meaning: 'The gRPC port speaks plaintext HTTP/2, and --server-tls on made the doctor insist on TLS.',
    hint: "Either the server's TLS overlay is not applied (its container has no --tls-cert-file and --tls-key-file) and clients that insist on TLS cannot connect, or this install serves plaintext and --server-tls on (serverTLS.enabled in the chart) is wrong for it.",
  },
  TL009: {
    status: 'FAIL',
    meaning: 'The server requires a client certificate and the doctor presented none.',
    hint: 'Pass --server-cert-file and --server-key-file with a certificate that the server accepts (issued by the CA it verifies clients against).',
  },
  TL010: {
    status: 'FAIL',
    meaning:
      'The server refused the TLS handshake, or ended the session right after it, for another reason than a missing client certificate.',
    hint: 'The error names the TLS alert: a client certificate the server does not accept, or no TLS version or cipher suite in common.',
  },
  TL011: {
    status: 'OK',
    meaning: 'The gRPC port speaks TLS with a certificate that verifies: authority, name and validity dates.',
    hint: 'Nothing to do.',
  },
  TL012: {
    status: 'INFO',
    meaning: "The server's certificate was not verified (--server-insecure-skip-verify).",
    hint: 'Without verification anyone on the path could pose as the server; give --server-ca-file instead.',
  },
} as const satisfies Record<string, CodeDeclaration>;

/** A certificate closer to its NotAfter than this is a WARN (a failed renewal is an outage to come). */
export const EXPIRY_WARNING_DAYS = 14;
const DAY_MS = 86_400_000;

/** The certificate as a finding names it: subject, DNS names (and IPs), NotAfter. */
export function describeCertificate(c: CertificateFacts): string {
  const subject = c.subject === '' ? 'an empty subject' : `subject ${c.subject}`;
  const dns = c.dnsNames.length === 0 ? 'no DNS names' : `DNS names ${c.dnsNames.join(', ')}`;
  const ips = c.ipAddresses.length === 0 ? '' : `, IP addresses ${c.ipAddresses.join(', ')}`;
  const more = c.namesOmitted === undefined ? '' : ` (${c.namesOmitted} names in all)`;
  return `certificate with ${subject}, ${dns}${ips}${more}, NotAfter ${c.notAfter}`;
}

function anchorText(anchor: TrustAnchor): string {
  return anchor.kind === 'system' ? 'the system roots' : `the CA file ${anchor.path}`;
}

/** Whole days from `now` to `iso`, rounded down. */
function daysUntil(iso: string, now: Date): number {
  return Math.floor((Date.parse(iso) - now.getTime()) / DAY_MS);
}

/** The validity findings of a certificate at `now`: not yet valid, expired, or close to its end. */
function judgeDates(emit: EmitFor<typeof CODES>, c: CertificateFacts, target: string, now: Date): Finding[] {
  const cert = describeCertificate(c);
  if (now.getTime() < Date.parse(c.notBefore)) {
    return [emit('TL005', target, `the server's ${cert} is valid only from ${c.notBefore}; the doctor's clock says ${now.toISOString()}`)];
  }
  if (now.getTime() > Date.parse(c.notAfter)) {
    const days = daysUntil(now.toISOString(), new Date(Date.parse(c.notAfter)));
    return [emit('TL004', target, `the server's ${cert} expired ${days === 0 ? 'less than a day' : `${days} days`} ago`)];
  }
  const days = daysUntil(c.notAfter, now);
  if (days < EXPIRY_WARNING_DAYS) {
    return [emit('TL006', target, `the server's ${cert} expires in ${days === 0 ? 'less than a day' : `${days} days`}`)];
  }
  return [];
}

/** The findings of a port that speaks TLS to a doctor that spoke TLS, in the order a client meets them. */
function judgeTls(emit: EmitFor<typeof CODES>, transport: Extract<ServerTransport, { kind: 'tls' }>, target: string, now: Date): Finding[] {
  const { certificate, trust, refused, clientCertificateSent } = transport;
  const cert = describeCertificate(certificate);
  const findings: Finding[] = [];
  if (refused !== undefined) {
    findings.push(
      refused.clientCertificateRequired && !clientCertificateSent
        ? emit(
            'TL009',
            target,
            `the server presented its ${cert}, then ended the session for want of a client certificate: ${refused.error}`,
          )
        : emit(
            'TL010',
            target,
            `the server ended the TLS session after the handshake${clientCertificateSent ? ' (it may not accept the client certificate given)' : ''}: ${refused.error}`,
          ),
    );
  }
  switch (trust.kind) {
    case 'skipped':
      findings.push(emit('TL012', target, `the server's ${cert} was not verified: --server-insecure-skip-verify`));
      break;
    case 'no-ca':
      findings.push(emit('TL001', target, `the gRPC port speaks TLS (${cert}), and ${trust.detail}`));
      break;
    case 'unknown-authority':
      findings.push(
        trust.anchor.kind === 'system'
          ? emit(
              'TL001',
              target,
              `the gRPC port speaks TLS (${cert}) and no --server-ca-file was given; the system roots do not lead to it (${trust.detail})`,
            )
          : emit('TL002', target, `the server's ${cert} does not lead to ${anchorText(trust.anchor)}: ${trust.detail}`),
      );
      break;
    case 'verified':
      break;
  }
  if (!transport.nameMatches) findings.push(emit('TL003', target, `the server's ${cert} does not carry the name ${transport.serverName}`));
  findings.push(...judgeDates(emit, certificate, target, now));
  if (trust.kind === 'verified' && !findings.some((f) => f.status === 'FAIL')) {
    findings.unshift(
      emit(
        'TL011',
        target,
        `the gRPC port speaks TLS with a ${cert}, verified against ${anchorText(trust.anchor)} for the name ${transport.serverName}`,
      ),
    );
  }
  return findings;
}

/** ServerTLS; see the module comment. A plaintext port probed in plaintext leaves it nothing to say. */
export const serverTls = defineCheck({
  name: 'ServerTLS',
  codes: CODES,
  reads: {},
  probes: { server: 'required' },
  judge({ probes, now }, emit) {
    const { location, transport } = probes.server;
    if (location.kind === 'failed' || transport === undefined) return [];
    const target = location.grpcTarget;
    switch (transport.kind) {
      case 'plaintext-port':
        return [emit('TL008', target, 'the gRPC port answered HTTP/2 without TLS, and --server-tls on asks for TLS')];
      case 'tls-port': {
        const cert = transport.certificate === undefined ? '' : ` (its ${describeCertificate(transport.certificate)})`;
        return [emit('TL007', target, `the gRPC port speaks TLS${cert}, and --server-tls off made the doctor speak plaintext to it`)];
      }
      case 'tls-refused': {
        const { refusal, clientCertificateSent } = transport;
        return refusal.clientCertificateRequired && !clientCertificateSent
          ? [emit('TL009', target, `the server ended the TLS handshake asking for a client certificate: ${refusal.error}`)]
          : [emit('TL010', target, `the server refused the TLS handshake: ${refusal.error}`)];
      }
      case 'tls':
        return judgeTls(emit, transport, target, now);
    }
  },
});
