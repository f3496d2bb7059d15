// Reading a server certificate: the subjectAltName string Node prints (hostile values quoted), the
// facts kept (bounded), the PEM bundle, the chain walk that ignores dates, and the HTTP/2 frame sniff.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificateFacts, chainLeadsTo, parsePemBundle, subjectAltNames } from '../../../src/probes/certificate.ts';
import { HTTP2_PREFACE, startsWithHttp2Frame } from '../../../src/probes/h2-preface.ts';
import { MAX_NAMES_KEPT } from '../../../src/probes/results.ts';
import { caChain, selfSignedServingCert, type CaChain, type ServingCert } from '../../support/tls-pki.ts';

let dir: string;
let self: ServingCert;
let chain: CaChain;
let other: ServingCert;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icd-cert-'));
  self = selfSignedServingCert(path.join(dir, 'self'));
  chain = caChain(path.join(dir, 'chain'), { intermediate: true, dnsNames: Array.from({ length: 20 }, (_, i) => `n${i}.example`) });
  other = selfSignedServingCert(path.join(dir, 'other'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('subjectAltNames', () => {
  it.each([
    [
      'DNS:a.svc, DNS:b.svc',
      [
        ['DNS', 'a.svc'],
        ['DNS', 'b.svc'],
      ],
    ],
    [
      'DNS:a, IP Address:10.0.0.1, IP Address:FD00:0:0:0:0:0:0:1',
      [
        ['DNS', 'a'],
        ['IP Address', '10.0.0.1'],
        ['IP Address', 'FD00:0:0:0:0:0:0:1'],
      ],
    ],
    [
      'DNS:"evil, DNS:fake", DNS:b',
      [
        ['DNS', 'evil, DNS:fake'],
        ['DNS', 'b'],
      ],
    ],
    ['DNS:"\\u001b[2Jx"', [['DNS', '\u001b[2Jx']]],
    ['', []],
  ])('%j', (text, expected) => {
    expect(subjectAltNames(text).map((e) => [e.type, e.value])).toEqual(expected);
  });
  it('an absent extension is no names', () => expect(subjectAltNames(undefined)).toEqual([]));
});

describe('certificateFacts', () => {
  it("cert-manager's shape: empty subject and issuer, the two Service names, ISO dates", () => {
    const facts = certificateFacts(new X509Certificate(self.leafPem));
    expect(facts).toMatchObject({
      subject: '',
      issuer: '',
      dnsNames: ['inference-cache-server.inference-cache-system.svc', 'inference-cache-server.inference-cache-system.svc.cluster.local'],
      ipAddresses: [],
    });
    expect(facts.notAfter).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    expect(facts.namesOmitted).toBeUndefined();
  });
  it(`keeps at most ${MAX_NAMES_KEPT} names and says how many there were`, () => {
    const facts = certificateFacts(new X509Certificate(chain.leafPem));
    expect(facts.dnsNames).toHaveLength(MAX_NAMES_KEPT);
    expect(facts.namesOmitted).toBe(20);
  });
});

describe('parsePemBundle', () => {
  it('reads every certificate of a bundle, in order', () => {
    const certs = parsePemBundle(`${chain.certPem}\n${self.caPem}`);
    expect(certs).toHaveLength(3);
    expect(certs[2]?.fingerprint256).toBe(new X509Certificate(self.caPem).fingerprint256);
  });
  it('refuses a file with no certificate, and a damaged one', () => {
    expect(() => parsePemBundle('hello')).toThrow('no PEM certificate');
    expect(() => parsePemBundle('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).toThrow();
  });
});

describe('chainLeadsTo', () => {
  const certs = (pem: string) => parsePemBundle(pem);
  it('a self-signed leaf trusted as itself', () => expect(chainLeadsTo(certs(self.certPem), certs(self.caPem))).toBe(true));
  it('leaf → intermediate → root', () => expect(chainLeadsTo(certs(chain.certPem), certs(chain.caPem))).toBe(true));
  it('the leaf alone, without its intermediate, does not reach the root', () =>
    expect(chainLeadsTo(certs(chain.leafPem), certs(chain.caPem))).toBe(false));
  it('another CA', () => {
    expect(chainLeadsTo(certs(self.certPem), certs(other.caPem))).toBe(false);
    expect(chainLeadsTo(certs(chain.certPem), certs(self.caPem))).toBe(false);
  });
  it('an empty chain leads nowhere', () => expect(chainLeadsTo([], certs(self.caPem))).toBe(false));
});

describe('startsWithHttp2Frame', () => {
  it('a SETTINGS or GOAWAY frame on stream 0', () => {
    expect(startsWithHttp2Frame(Buffer.from('000000040000000000', 'hex'))).toBe(true);
    expect(startsWithHttp2Frame(Buffer.from('000008070000000000', 'hex'))).toBe(true);
  });
  it('not: a TLS alert, a frame on a stream, HTTP/1, too short', () => {
    expect(startsWithHttp2Frame(Buffer.from('15030300020228', 'hex'))).toBe(false);
    expect(startsWithHttp2Frame(Buffer.from('000000040000000001', 'hex'))).toBe(false);
    expect(startsWithHttp2Frame(Buffer.from('HTTP/1.1 400 Bad', 'latin1'))).toBe(false);
    expect(startsWithHttp2Frame(Buffer.from('0000', 'hex'))).toBe(false);
  });
  it('the preface sent ends with an empty SETTINGS frame', () => {
    expect(HTTP2_PREFACE.subarray(-9).toString('hex')).toBe('000000040000000000');
  });
});
