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
    fix: "1. Get the CA that issued the server's certificate: with cert-manager it is ca.crt in the Secret inference-cache-server-tls (kubectl -n inference-cache-system get secret inference-cache-server-tls -o go-template='{{index .data \"ca.crt\" | base64decode}}' > ca.crt). 2. Pass it with --server-ca-file ca.crt; in the chart, serverTLS.enabled=true mounts it. 3. If the message says the CA file could not be read, check the path, or that the Secret exists in the server's namespace.",
  },
  TL002: {
    status: 'FAIL',
    meaning: "The server's certificate does not lead to the CA given with --server-ca-file (unknown authority).",
    hint: "Give the CA that issued the server's current certificate. With cert-manager's self-signed Issuer, ca.crt is the leaf itself and changes at every renewal, so a copy goes stale: mount it from the Secret, or issue from a CA Issuer whose root stays.",
    fix: "1. Compare the certificate's issuer, which the finding names, with the CA you gave: openssl x509 -in <ca file> -noout -subject. 2. Give the CA that issued the server's current certificate. 3. With cert-manager's self-signed Issuer, ca.crt is the certificate itself and changes at every renewal: mount it from the Secret rather than a copy (the chart's serverTLS.enabled does), or issue from a CA Issuer whose root stays.",
  },
  TL003: {
    status: 'FAIL',
    meaning: "The server's certificate does not carry the name the doctor verified (the Service DNS name, or --server-name).",
    hint: "Add the name clients dial (inference-cache-server.<namespace>.svc) to the Certificate's dnsNames, or pass --server-name with a name the certificate carries.",
    fix: '1. See which names the certificate carries (the finding lists them) and which name the doctor checked. 2. Add the name clients dial, inference-cache-server.<namespace>.svc, to spec.dnsNames of the cert-manager Certificate, and let it reissue. 3. If you dial another name on purpose (an IP address, a port-forward), pass --server-name with a name the certificate carries (serverTLS.serverName in the chart).',
  },
  TL004: {
    status: 'FAIL',
    meaning: "The server's certificate has expired: every verifying client refuses it.",
    hint: 'Renew it. With cert-manager, the Certificate inference-cache-server-serving-cert and its latest CertificateRequest say why renewal failed; the server re-reads the Secret when it changes.',
    fix: '1. Find why it was not renewed: kubectl -n inference-cache-system describe certificate inference-cache-server-serving-cert, and its latest CertificateRequest (kubectl -n inference-cache-system get certificaterequests). 2. Fix what they report about the issuer, then renew: cmctl renew -n inference-cache-system inference-cache-server-serving-cert. 3. The server re-reads the Secret when it changes; run the doctor again to see TL011.',
  },
  TL005: {
    status: 'FAIL',
    meaning: "The server's certificate is not valid yet: its NotBefore is later than the doctor's clock.",
    hint: 'Compare the clocks of the node the doctor ran on and of the issuer; a certificate issued with a future start is refused until then.',
    fix: "1. Compare the certificate's NotBefore with the doctor's clock, both in the message. 2. Check the time on the node the doctor ran on and on the issuer's side (timedatectl, chronyc tracking) and repair the one that is off. 3. If both clocks are right, the certificate was issued with a future start: wait for it, or reissue it.",
  },
  TL006: {
    status: 'WARN',
    meaning: "The server's certificate expires within 14 days.",
    hint: "cert-manager renews at two thirds of a certificate's lifetime unless told otherwise, so a certificate this close to its end usually means renewal is failing: read the Certificate's conditions and its issuer's.",
    fix: "1. cert-manager renews at two thirds of a certificate's lifetime unless told otherwise, so one this close to its end usually means renewal is failing: kubectl -n inference-cache-system describe certificate inference-cache-server-serving-cert. 2. Fix what its conditions and its Issuer's report, then renew (cmctl renew -n inference-cache-system inference-cache-server-serving-cert). 3. If a short renewBefore is deliberate, this is expected until renewal; suppress TL006.",
  },
  TL007: {
    status: 'FAIL',
    meaning: 'The gRPC port speaks TLS, and --server-tls off made the doctor speak plaintext to it.',
    hint: `Drop --server-tls off (auto detects TLS) and give ${CA_FLAGS}.`,
    fix: '1. Run without --server-tls off: the default, auto, finds TLS by itself. 2. Give the CA with --server-ca-file so the certificate can be verified; in the chart, serverTLS.enabled=true mounts ca.crt from the Secret inference-cache-server-tls.',
  },
  TL008: {
    status: 'FAIL',
    meaning: 'The gRPC port speaks plaintext HTTP/2, and --server-tls on made the doctor insist on TLS.',
    hint: "Either the server's TLS overlay is not applied (its container has no --tls-cert-file and --tls-key-file) and clients that insist on TLS cannot connect, or this install serves plaintext and --server-tls on (serverTLS.enabled in the chart) is wrong for it.",
    fix: '1. If the server should speak TLS, its TLS overlay is not applied: its container lacks --tls-cert-file and --tls-key-file (kubectl -n inference-cache-system get deploy inference-cache-server -o yaml); apply it, since clients that insist on TLS cannot connect. 2. If this install serves plaintext, drop --server-tls on (serverTLS.enabled=false in the chart).',
  },
  TL009: {
    status: 'FAIL',
    meaning: 'The server requires a client certificate and the doctor presented none.',
    hint: 'Pass --server-cert-file and --server-key-file with a certificate that the server accepts (issued by the CA it verifies clients against).',
    fix: '1. Pass --server-cert-file and --server-key-file with a client certificate issued by the CA the server verifies clients against (for example tls.crt and tls.key of a cert-manager Certificate from that Issuer). 2. Run again; if the server refuses that certificate, the finding becomes TL010 with the alert it sent.',
  },
  TL010: {
    status: 'FAIL',
    meaning:
      'The server refused the TLS handshake, or ended the session right after it, for another reason than a missing client certificate.',
    hint: 'The error names the TLS alert: a client certificate the server does not accept, or no TLS version or cipher suite in common.',
    fix: "1. Read the TLS alert at the end of the message. 2. Bad certificate or unknown CA after a client certificate was sent: the server does not accept it; issue one from the CA it trusts for clients. 3. Protocol version or handshake failure: the server and the doctor share no TLS version or cipher suite; look at the server's TLS settings.",
  },
  TL011: {
    status: 'OK',
    meaning: 'The gRPC port speaks TLS with a certificate that verifies: authority, name and validity dates.',
    hint: 'Nothing to do.',
    fix: 'Nothing needs doing: the certificate verifies for its authority, its name and its dates. cert-manager renewing it in time keeps it so; TL006 warns 14 days before it would expire.',
  },
  TL012: {
    status: 'INFO',
    meaning: "The server's certificate was not verified (--server-insecure-skip-verify).",
    hint: 'Without verification anyone on the path could pose as the server; give --server-ca-file instead.',
    fix: "1. Drop --server-insecure-skip-verify and pass --server-ca-file with the CA that issued the server's certificate (the chart's serverTLS.enabled does this), so that the doctor knows it speaks to the real server. 2. Keep skip-verify for a one-off look at a certificate, never for a standing check.",
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
