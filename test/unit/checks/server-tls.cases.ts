/** ServerTLS (TL): what the gRPC port speaks, and the certificate it presents (issue 15). */
import { serverTls } from '../../../src/checks/server-tls.ts';
import type { CertificateFacts, CertificateTrust, ServerTransport } from '../../../src/probes/results.ts';
import { serverReachability } from '../../../src/checks/server-reachability.ts';
import { GRPC_TARGET, NOW, input, omit, probed, serverOf, type Case, type CheckTable } from './fixtures.ts';

const SERVICE = 'inference-cache-server.inference-cache-system.svc';
const DAY = 86_400_000;
const at = (days: number): string => new Date(NOW.getTime() + days * DAY).toISOString();

/** A certificate as cert-manager's self-signed Issuer makes it: empty subject, the two Service names. */
const CERT: CertificateFacts = {
  subject: '',
  issuer: '',
  dnsNames: [SERVICE, `${SERVICE}.cluster.local`],
  ipAddresses: [],
  notBefore: at(-30),
  notAfter: at(60),
};
const CA_FILE = { kind: 'ca-file', path: '/var/run/secrets/inferencecache.io/server-tls/ca.crt' } as const;
const VERIFIED: CertificateTrust = { kind: 'verified', anchor: CA_FILE };

type Tls = Extract<ServerTransport, { kind: 'tls' }>;
const tls = (o: Partial<Tls> = {}): Tls => ({
  kind: 'tls',
  serverName: SERVICE,
  certificate: CERT,
  trust: VERIFIED,
  nameMatches: true,
  clientCertificateSent: false,
  ...o,
});

const over = (transport: ServerTransport, healthy = true): Case['input'] =>
  input({ probes: healthy ? probed({ transport }) : { ...probed({ transport }), server: omit(serverOf({ transport }), 'health') } });

export const serverTlsCases: readonly Case[] = [
  { name: 'config-only → nothing', input: input(), expected: [] },
  { name: 'a plaintext port probed in plaintext (no transport) → nothing', input: input({ probes: { ...probed() } }), expected: [] },
  {
    name: 'location failed → nothing (SV001 says it)',
    input: input({ probes: probed({ location: { kind: 'failed', error: 'x' } }) }),
    expected: [],
  },
  {
    name: 'verified, far from expiry → TL011 naming the subject, names, NotAfter and the CA file',
    input: over(tls()),
    expected: [
      [
        'TL011',
        GRPC_TARGET,
        ['an empty subject', `DNS names ${SERVICE}, ${SERVICE}.cluster.local`, `NotAfter ${CERT.notAfter}`, CA_FILE.path],
      ],
    ],
  },
  {
    name: 'verified against the system roots, with a subject and an IP → TL011 saying so',
    input: over(
      tls({
        trust: { kind: 'verified', anchor: { kind: 'system' } },
        certificate: { ...CERT, subject: 'CN=server, O=acme', ipAddresses: ['10.0.0.9'] },
      }),
    ),
    expected: [['TL011', GRPC_TARGET, ['subject CN=server, O=acme', 'IP addresses 10.0.0.9', 'the system roots']]],
  },
  {
    name: 'no CA given, system roots do not lead to it → TL001 naming the flag',
    input: over(tls({ trust: { kind: 'unknown-authority', anchor: { kind: 'system' }, detail: 'DEPTH_ZERO_SELF_SIGNED_CERT' } }), false),
    expected: [['TL001', GRPC_TARGET, ['no --server-ca-file', 'DEPTH_ZERO_SELF_SIGNED_CERT', `NotAfter ${CERT.notAfter}`]]],
  },
  {
    name: 'the CA file cannot be read (the optional Secret is missing) → TL001 with the reason',
    input: over(tls({ trust: { kind: 'no-ca', detail: `the CA file ${CA_FILE.path} cannot be used: ENOENT` } }), false),
    expected: [['TL001', GRPC_TARGET, ['ENOENT', CA_FILE.path]]],
  },
  {
    name: 'the CA file does not lead to it → TL002 (unknown authority)',
    input: over(tls({ trust: { kind: 'unknown-authority', anchor: CA_FILE, detail: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY' } }), false),
    expected: [['TL002', GRPC_TARGET, [CA_FILE.path, 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'an empty subject']]],
  },
  {
    name: 'name mismatch → TL003 naming the name checked and the names carried',
    input: over(tls({ nameMatches: false, serverName: 'other.example' }), false),
    expected: [['TL003', GRPC_TARGET, ['other.example', `DNS names ${SERVICE}`]]],
  },
  {
    name: 'expired 3 days ago → TL004 (and no TL011)',
    input: over(tls({ certificate: { ...CERT, notBefore: at(-93), notAfter: at(-3) } })),
    expected: [['TL004', GRPC_TARGET, ['expired 3 days ago', `NotAfter ${at(-3)}`]]],
  },
  {
    name: 'expired AND unknown authority → both, authority first',
    input: over(
      tls({ certificate: { ...CERT, notAfter: at(-1) }, trust: { kind: 'unknown-authority', anchor: CA_FILE, detail: 'x' } }),
      false,
    ),
    expected: [
      ['TL002', GRPC_TARGET],
      ['TL004', GRPC_TARGET, ['expired 1 days ago']],
    ],
  },
  {
    name: 'not yet valid → TL005 with both instants',
    input: over(tls({ certificate: { ...CERT, notBefore: at(2), notAfter: at(92) } })),
    expected: [['TL005', GRPC_TARGET, [`valid only from ${at(2)}`, NOW.toISOString()]]],
  },
  {
    name: 'expires in 5 days → TL011 then TL006 (WARN)',
    input: over(tls({ certificate: { ...CERT, notAfter: at(5.5) } })),
    expected: [
      ['TL011', GRPC_TARGET],
      ['TL006', GRPC_TARGET, ['expires in 5 days']],
    ],
  },
  {
    name: 'expires in 14 days and a minute → no WARN',
    input: over(tls({ certificate: { ...CERT, notAfter: new Date(NOW.getTime() + 14 * DAY + 60_000).toISOString() } })),
    expected: [['TL011', GRPC_TARGET]],
  },
  {
    name: 'expires in 13 days 23 hours → TL006',
    input: over(tls({ certificate: { ...CERT, notAfter: new Date(NOW.getTime() + 14 * DAY - 3_600_000).toISOString() } })),
    expected: [
      ['TL011', GRPC_TARGET],
      ['TL006', GRPC_TARGET, ['expires in 13 days']],
    ],
  },
  {
    name: 'expires within the hour → TL006 "less than a day"',
    input: over(tls({ certificate: { ...CERT, notAfter: new Date(NOW.getTime() + 3_600_000).toISOString() } })),
    expected: [
      ['TL011', GRPC_TARGET],
      ['TL006', GRPC_TARGET, ['less than a day']],
    ],
  },
  {
    name: '--server-tls off and the port speaks TLS → TL007 with the certificate',
    input: over({ kind: 'tls-port', certificate: CERT }, false),
    expected: [['TL007', GRPC_TARGET, ['--server-tls off', 'an empty subject']]],
  },
  {
    name: '--server-tls off, TLS port that showed no certificate → TL007',
    input: over({ kind: 'tls-port' }, false),
    expected: [['TL007', GRPC_TARGET, [], ['certificate']]],
  },
  {
    name: '--server-tls on and the port speaks plaintext HTTP/2 → TL008',
    input: over({ kind: 'plaintext-port' }, false),
    expected: [['TL008', GRPC_TARGET, ['without TLS']]],
  },
  {
    name: 'client certificate required after the handshake, none sent → TL009',
    input: over(tls({ refused: { error: 'tlsv13 alert certificate required', clientCertificateRequired: true } }), false),
    expected: [['TL009', GRPC_TARGET, ['client certificate', 'tlsv13 alert certificate required', 'an empty subject']]],
  },
  {
    name: 'client certificate required during the handshake, none sent → TL009',
    input: over(
      { kind: 'tls-refused', refusal: { error: 'alert 116', clientCertificateRequired: true }, clientCertificateSent: false },
      false,
    ),
    expected: [['TL009', GRPC_TARGET, ['alert 116']]],
  },
  {
    name: 'a client certificate was sent and the session closed → TL010 (not TL009)',
    input: over(tls({ clientCertificateSent: true, refused: { error: 'closed', clientCertificateRequired: false } }), false),
    expected: [['TL010', GRPC_TARGET, ['may not accept the client certificate']]],
  },
  {
    name: 'handshake refused with another alert → TL010',
    input: over(
      {
        kind: 'tls-refused',
        refusal: { error: 'alert handshake failure', clientCertificateRequired: false },
        clientCertificateSent: false,
      },
      false,
    ),
    expected: [['TL010', GRPC_TARGET, ['alert handshake failure']]],
  },
  {
    name: '--server-insecure-skip-verify → TL012 (INFO), never TL011',
    input: over(tls({ trust: { kind: 'skipped' } })),
    expected: [['TL012', GRPC_TARGET, ['not verified']]],
  },
  {
    name: 'skip-verify still judges the dates: expired → TL012 and TL004',
    input: over(tls({ trust: { kind: 'skipped' }, certificate: { ...CERT, notAfter: at(-2) } })),
    expected: [
      ['TL012', GRPC_TARGET],
      ['TL004', GRPC_TARGET],
    ],
  },
];

export const serverTlsTable: CheckTable = { check: serverTls, cases: serverTlsCases };

/** What ServerReachability says beside the transport: upstream's three codes, nothing new. */
export const reachabilityOverTlsTable: CheckTable = {
  check: serverReachability,
  cases: [
    {
      name: 'SERVING through TLS → SV003 saying so',
      input: over(tls()),
      expected: [['SV003', GRPC_TARGET, ['SERVING', 'through TLS']]],
    },
    {
      name: 'SERVING in plaintext → SV003 without a word of TLS',
      input: input({ probes: { ...probed() } }),
      expected: [['SV003', GRPC_TARGET, ['SERVING'], ['TLS']]],
    },
    {
      name: 'no health call because the certificate did not verify → SV001 pointing at ServerTLS',
      input: over(tls({ trust: { kind: 'unknown-authority', anchor: CA_FILE, detail: 'x' } }), false),
      expected: [['SV001', GRPC_TARGET, ['not made', 'ServerTLS']]],
    },
    {
      name: 'no health call because the port speaks plaintext under --server-tls on → SV001',
      input: over({ kind: 'plaintext-port' }, false),
      expected: [['SV001', GRPC_TARGET, ['speaks plaintext']]],
    },
    {
      name: 'expired certificate: the TLS health call failed → SV001 with its error',
      input: input({
        probes: {
          ...probed({
            transport: tls({ certificate: { ...CERT, notAfter: at(-3) } }),
            health: { kind: 'error', error: 'rpc error: code = Unavailable desc = certificate has expired' },
          }),
        },
      }),
      expected: [['SV001', GRPC_TARGET, ['certificate has expired']]],
    },
  ],
};
