/**
 * Certificates for the stand-in's HTTPS endpoint (the one kube-apiserver calls for `pods/log`),
 * made with the openssl CLI like the control plane's own PKI.
 *
 * A real kubelet serves with a certificate the API server can verify and only answers clients that
 * authenticate. `createKubeletPki` makes one CA, a serving certificate for 127.0.0.1 and a client
 * certificate for kube-apiserver; `kubeletApiServerArgs` turns them into the kube-apiserver flags, so
 * a suite can start its control plane with both directions verified. Without it the stand-in serves a
 * self-signed certificate, which kube-apiserver accepts when it has no `--kubelet-certificate-authority`.
 *
 * @module
 */

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Files of the kubelet-side PKI (PEM). */
export interface KubeletPki {
  /** CA that signed both certificates; the stand-in trusts client certificates it signed. */
  readonly caFile: string;
  readonly servingCert: string;
  readonly servingKey: string;
  /** Client certificate kube-apiserver presents to the kubelet. */
  readonly apiServerClientCert: string;
  readonly apiServerClientKey: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function signedCert(dir: string, name: string, subject: string, ext: string): void {
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
  openssl(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '30',
      '-extfile',
      `${name}.ext`,
    ],
    dir,
  );
}

/** Creates a CA, a serving certificate (`ips`, default 127.0.0.1; DNS `nodeName`) and an API-server client certificate in `dir`. */
export function createKubeletPki(dir: string, nodeName = 'standin-node', ips: readonly string[] = ['127.0.0.1']): KubeletPki {
  fs.mkdirSync(dir, { recursive: true });
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-days',
      '30',
      '-subj',
      '/CN=kubelet-standin-ca',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  signedCert(
    dir,
    'serving',
    `/CN=system:node:${nodeName}/O=system:nodes`,
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')},DNS:${nodeName}\n`,
  );
  signedCert(
    dir,
    'apiserver-kubelet-client',
    '/CN=kube-apiserver-kubelet-client/O=system:masters',
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
  );
  return {
    caFile: path.join(dir, 'ca.crt'),
    servingCert: path.join(dir, 'serving.crt'),
    servingKey: path.join(dir, 'serving.key'),
    apiServerClientCert: path.join(dir, 'apiserver-kubelet-client.crt'),
    apiServerClientKey: path.join(dir, 'apiserver-kubelet-client.key'),
  };
}

/** The kube-apiserver flags that make it verify the stand-in and authenticate to it. */
export function kubeletApiServerArgs(pki: KubeletPki): string[] {
  return [
    `--kubelet-client-certificate=${pki.apiServerClientCert}`,
    `--kubelet-client-key=${pki.apiServerClientKey}`,
    `--kubelet-certificate-authority=${pki.caFile}`,
    '--kubelet-preferred-address-types=InternalIP',
  ];
}

/** A self-signed serving certificate for 127.0.0.1, for a stand-in started without a PKI. */
export function selfSignedServing(dir: string, nodeName: string): { cert: string; key: string } {
  fs.mkdirSync(dir, { recursive: true });
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'serving.key',
      '-out',
      'serving.crt',
      '-days',
      '30',
      '-subj',
      `/CN=system:node:${nodeName}`,
      '-addext',
      `subjectAltName=IP:127.0.0.1,DNS:${nodeName}`,
    ],
    dir,
  );
  return { cert: path.join(dir, 'serving.crt'), key: path.join(dir, 'serving.key') };
}
