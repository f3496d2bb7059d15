/**
 * Test certificates for TLS on the cache-plane server's gRPC port, made with the openssl CLI: a serving
 * certificate shaped like the one cert-manager's `selfSigned` Issuer makes (the chart's default), a
 * root → intermediate → leaf chain like a CA Issuer's, and client certificates for mTLS. Every
 * certificate takes an arbitrary validity window, so tests can make expired, not-yet-valid and
 * soon-expiring ones.
 *
 * `openssl x509 -req` and `openssl req -x509` accept only `-days` in OpenSSL 3.0, so signing goes
 * through `openssl ca` with `-startdate`/`-enddate`, a minimal config and a throwaway database kept in
 * a hidden folder of the output directory. Keys are ECDSA P-256: quick to make, and accepted by both
 * Node's TLS and grpc-js.
 *
 * Test support only; never shipped.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openssl } from '../../dev/cluster/pki/openssl.ts';

/** The DNS names of the server's Service, as the chart's Certificate lists them. */
export const DEFAULT_SERVER_DNS_NAMES: readonly string[] = [
  'inference-cache-server.inference-cache-system.svc',
  'inference-cache-server.inference-cache-system.svc.cluster.local',
];

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Validity window and names of a serving certificate. */
export interface ServingCertOptions {
  /** subjectAltName DNS entries. Default {@link DEFAULT_SERVER_DNS_NAMES}. */
  readonly dnsNames?: readonly string[];
  /** Start of validity. Default one hour ago. */
  readonly notBefore?: Date;
  /** End of validity. Default 30 days after `notBefore`. */
  readonly notAfter?: Date;
}

/** Options of {@link caChain}: the leaf's window and names, plus the shape and window of its CAs. */
export interface CaChainOptions extends ServingCertOptions {
  /** Put an intermediate CA between the root and the leaf. Default false. */
  readonly intermediate?: boolean;
  /** Start of the CAs' validity. Default one day ago. */
  readonly caNotBefore?: Date;
  /** End of the CAs' validity. Default one year from now. */
  readonly caNotAfter?: Date;
}

/**
 * The files a cert-manager Certificate's Secret holds, written to `dir` (`tls.crt`, `tls.key`,
 * `ca.crt`), with their contents so tests need not read them back.
 */
export interface ServingCert {
  readonly dir: string;
  /** `tls.crt`: the leaf, then any intermediate (the chain the server presents). */
  readonly certFile: string;
  /** `tls.key`: the leaf's private key. */
  readonly keyFile: string;
  /** `ca.crt`: what a client trusts. */
  readonly caFile: string;
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
  /** The leaf certificate alone. */
  readonly leafPem: string;
}

/** A {@link ServingCert} issued by a CA whose key stays in `dir` (`ca.key`) for {@link clientCert}. */
export interface CaChain extends ServingCert {
  /** `ca.key`: the root's private key. */
  readonly caKeyFile: string;
  /** The intermediate CA, when there is one. */
  readonly intermediatePem?: string;
}

/** A client certificate and its key, for mTLS. */
export interface ClientCert {
  readonly certFile: string;
  readonly keyFile: string;
  readonly certPem: string;
  readonly keyPem: string;
}

/** How `openssl ca` wants a time: GeneralizedTime, whole seconds, UTC. */
function asn1Time(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new Error('invalid date');
  return `${date.toISOString().slice(0, 19).replace(/[-T:]/g, '')}Z`;
}

function window(opts: { notBefore?: Date; notAfter?: Date }): { notBefore: Date; notAfter: Date } {
  const notBefore = opts.notBefore ?? new Date(Date.now() - HOUR_MS);
  const notAfter = opts.notAfter ?? new Date(notBefore.getTime() + 30 * DAY_MS);
  if (notAfter.getTime() <= notBefore.getTime()) throw new Error('notAfter must be after notBefore');
  return { notBefore, notAfter };
}

function sanExtension(dnsNames: readonly string[], emptySubject: boolean): string {
  if (dnsNames.length === 0) throw new Error('at least one DNS name is needed');
  for (const name of dnsNames) if (!/^[A-Za-z0-9*.-]+$/.test(name)) throw new Error(`not a DNS name: ${JSON.stringify(name)}`);
  // RFC 5280 4.2.1.6: with an empty subject the subjectAltName extension is critical, as cert-manager makes it.
  return `subjectAltName = ${emptySubject ? 'critical,' : ''}${dnsNames.map((n) => `DNS:${n}`).join(',')}`;
}

/** The minimal `openssl ca` setup in `<dir>/.openssl-ca`: config, empty database. Returns the config's path. */
function caWorkspace(dir: string): string {
  const work = path.join(dir, '.openssl-ca');
  const config = path.join(work, 'ca.cnf');
  if (fs.existsSync(config)) return config;
  fs.mkdirSync(work, { recursive: true });
  fs.writeFileSync(path.join(work, 'index.txt'), '');
  // A random first serial: certificates from different workspaces never share issuer and serial.
  fs.writeFileSync(path.join(work, 'serial'), `${randomBytes(8).toString('hex').replace(/^./, '1')}\n`);
  fs.writeFileSync(
    config,
    [
      '[ ca ]',
      'default_ca = test_ca',
      '[ test_ca ]',
      `database = ${path.join(work, 'index.txt')}`,
      `new_certs_dir = ${work}`,
      `serial = ${path.join(work, 'serial')}`,
      'default_md = sha256',
      'policy = any_subject',
      'unique_subject = no',
      'copy_extensions = none',
      'email_in_dn = no',
      '[ any_subject ]',
      'commonName = optional',
      '',
    ].join('\n'),
  );
  return config;
}

function newKey(dir: string, file: string): void {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file], dir);
  fs.chmodSync(path.join(dir, file), 0o600);
}

interface Issue {
  /** Where the files go and the `openssl ca` workspace lives. */
  readonly dir: string;
  /** Output certificate file name (in `dir`). */
  readonly out: string;
  /** Subject key file name (in `dir`); created. */
  readonly key: string;
  /** `/CN=…` or `/` for an empty subject. */
  readonly subject: string;
  /** Extension lines (openssl config syntax). */
  readonly extensions: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Absolute paths of the issuer's certificate and key; absent: self-signed with `key`. */
  readonly issuer?: { readonly cert: string; readonly key: string };
}

/** Makes a key and a certificate for it with `openssl ca`; returns the certificate's PEM. */
function issue(spec: Issue): string {
  const config = caWorkspace(spec.dir);
  const base = path.basename(spec.out, path.extname(spec.out));
  const work = path.dirname(config);
  const csr = path.join(work, `${base}.csr`);
  const ext = path.join(work, `${base}.ext`);
  newKey(spec.dir, spec.key);
  openssl(['req', '-new', '-key', spec.key, '-subj', spec.subject, '-out', csr], spec.dir);
  fs.writeFileSync(ext, `[ ext ]\n${spec.extensions.join('\n')}\n`);
  const signer = spec.issuer === undefined ? ['-selfsign', '-keyfile', spec.key] : ['-cert', spec.issuer.cert, '-keyfile', spec.issuer.key];
  openssl(
    [
      'ca',
      '-batch',
      '-notext',
      '-config',
      config,
      ...signer,
      '-in',
      csr,
      '-out',
      spec.out,
      '-startdate',
      asn1Time(spec.notBefore),
      '-enddate',
      asn1Time(spec.notAfter),
      '-extfile',
      ext,
      '-extensions',
      'ext',
    ],
    spec.dir,
  );
  return fs.readFileSync(path.join(spec.dir, spec.out), 'utf8');
}

const LEAF_KEY_USAGE = 'keyUsage = critical,digitalSignature,keyEncipherment';
const CA_KEY_USAGE = 'keyUsage = critical,keyCertSign,cRLSign';

/** What every serving leaf carries: not a CA, its key usage, the DNS names in a critical subjectAltName. */
function servingExtensions(opts: ServingCertOptions): string[] {
  return ['basicConstraints = critical,CA:FALSE', LEAF_KEY_USAGE, sanExtension(opts.dnsNames ?? DEFAULT_SERVER_DNS_NAMES, true)];
}

/**
 * A serving certificate as cert-manager's `selfSigned` Issuer makes it for the chart's Certificate:
 * self-signed with its own key, not a CA (`CA:FALSE`), an empty subject, the DNS names in a critical
 * subjectAltName, keyUsage digitalSignature and keyEncipherment, and `ca.crt` identical to `tls.crt`.
 * This is the shape whose trust (a leaf as its own anchor) clients handle least uniformly.
 */
export function selfSignedServingCert(dir: string, opts: ServingCertOptions = {}): ServingCert {
  fs.mkdirSync(dir, { recursive: true });
  const { notBefore, notAfter } = window(opts);
  const pem = issue({
    dir,
    out: 'tls.crt',
    key: 'tls.key',
    subject: '/',
    extensions: [...servingExtensions(opts), 'subjectKeyIdentifier = none', 'authorityKeyIdentifier = none'],
    notBefore,
    notAfter,
  });
  fs.writeFileSync(path.join(dir, 'ca.crt'), pem);
  return servingFiles(dir, pem, pem, pem);
}

/** The files of a Secret-like `dir` (tls.crt, tls.key, ca.crt), with the PEMs already written to them. */
function servingFiles(dir: string, certPem: string, caPem: string, leafPem: string): ServingCert {
  return {
    dir,
    certFile: path.join(dir, 'tls.crt'),
    keyFile: path.join(dir, 'tls.key'),
    caFile: path.join(dir, 'ca.crt'),
    certPem,
    keyPem: fs.readFileSync(path.join(dir, 'tls.key'), 'utf8'),
    caPem,
    leafPem,
  };
}

/**
 * A root CA, optionally an intermediate, and a serving leaf they issue (a cert-manager CA Issuer, or
 * a corporate PKI): `tls.crt` holds the leaf and the intermediate, `ca.crt` the root alone, so a
 * client must build the chain through what the server presents. The root's key stays in `ca.key` for
 * {@link clientCert}.
 */
export function caChain(dir: string, opts: CaChainOptions = {}): CaChain {
  fs.mkdirSync(dir, { recursive: true });
  const caWindow = window({
    notBefore: opts.caNotBefore ?? new Date(Date.now() - DAY_MS),
    notAfter: opts.caNotAfter ?? new Date(Date.now() + 365 * DAY_MS),
  });
  const rootPem = issue({
    dir,
    out: 'ca.crt',
    key: 'ca.key',
    subject: '/CN=inference-cache test root CA',
    extensions: ['basicConstraints = critical,CA:TRUE', CA_KEY_USAGE, 'subjectKeyIdentifier = hash'],
    ...caWindow,
  });
  let issuer = { cert: path.join(dir, 'ca.crt'), key: path.join(dir, 'ca.key') };
  let intermediatePem: string | undefined;
  if (opts.intermediate === true) {
    intermediatePem = issue({
      dir,
      out: 'intermediate.crt',
      key: 'intermediate.key',
      subject: '/CN=inference-cache test intermediate CA',
      extensions: [
        'basicConstraints = critical,CA:TRUE,pathlen:0',
        CA_KEY_USAGE,
        'subjectKeyIdentifier = hash',
        'authorityKeyIdentifier = keyid:always',
      ],
      issuer,
      ...caWindow,
    });
    issuer = { cert: path.join(dir, 'intermediate.crt'), key: path.join(dir, 'intermediate.key') };
  }
  const leafPem = issue({
    dir,
    out: 'leaf.crt',
    key: 'tls.key',
    subject: '/',
    extensions: [...servingExtensions(opts), 'authorityKeyIdentifier = keyid:always'],
    issuer,
    ...window(opts),
  });
  const certPem = leafPem + (intermediatePem ?? '');
  fs.writeFileSync(path.join(dir, 'tls.crt'), certPem);
  return {
    ...servingFiles(dir, certPem, rootPem, leafPem),
    caKeyFile: path.join(dir, 'ca.key'),
    ...(intermediatePem === undefined ? {} : { intermediatePem }),
  };
}

/**
 * A client certificate (`<name>.crt`, `<name>.key` in `dir`; extendedKeyUsage clientAuth, subject
 * `CN=<name>`) issued by the root CA that {@link caChain} left in `caDir`, valid from one hour ago for
 * 30 days: what a caller presents to a server that requires client certificates.
 */
export function clientCert(dir: string, caDir: string, name: string): ClientCert {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`client certificate name must be a plain file name: ${JSON.stringify(name)}`);
  const caCert = path.resolve(caDir, 'ca.crt');
  const caKey = path.resolve(caDir, 'ca.key');
  if (!fs.existsSync(caKey)) throw new Error(`${caDir} holds no CA key (ca.key): make it with caChain()`);
  fs.mkdirSync(dir, { recursive: true });
  const certPem = issue({
    dir,
    out: `${name}.crt`,
    key: `${name}.key`,
    subject: `/CN=${name}`,
    extensions: [
      'basicConstraints = critical,CA:FALSE',
      'keyUsage = critical,digitalSignature',
      'extendedKeyUsage = clientAuth',
      'authorityKeyIdentifier = keyid:always',
    ],
    issuer: { cert: caCert, key: caKey },
    ...window({}),
  });
  return {
    certFile: path.join(dir, `${name}.crt`),
    keyFile: path.join(dir, `${name}.key`),
    certPem,
    keyPem: fs.readFileSync(path.join(dir, `${name}.key`), 'utf8'),
  };
}
