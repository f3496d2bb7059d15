/**
 * Certificates for the kubelet's HTTPS endpoint (the one kube-apiserver calls for `pods/log`), made
 * with the openssl CLI like the control plane's own PKI, and reused wherever a test needs a small CA
 * with a serving and a client certificate.
 *
 * The real node's kubelet serves with a certificate the API server verifies and answers only clients
 * that authenticate: `createKubeletPki` makes one CA, a serving certificate for the node's addresses and
 * a client certificate for kube-apiserver; `kubeletApiServerArgs` turns them into kube-apiserver's flags.
 *
 * @module
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { createCa, signedCert } from './openssl-pki.ts';

/** Files of the kubelet-side PKI (PEM). */
export interface KubeletPki {
  /** CA that signed both certificates; the kubelet trusts client certificates it signed. */
  readonly caFile: string;
  readonly servingCert: string;
  readonly servingKey: string;
  /** Client certificate kube-apiserver presents to the kubelet. */
  readonly apiServerClientCert: string;
  readonly apiServerClientKey: string;
}

/** Creates a CA, a serving certificate (`ips`, default 127.0.0.1; DNS `nodeName`) and an API-server client certificate in `dir`. */
export function createKubeletPki(dir: string, nodeName = 'test-node', ips: readonly string[] = ['127.0.0.1']): KubeletPki {
  fs.mkdirSync(dir, { recursive: true });
  createCa(dir, 'inferencecache-test-kubelet-ca');
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

/** The kube-apiserver flags that make it verify the kubelet and authenticate to it. */
export function kubeletApiServerArgs(pki: KubeletPki): string[] {
  return [
    `--kubelet-client-certificate=${pki.apiServerClientCert}`,
    `--kubelet-client-key=${pki.apiServerClientKey}`,
    `--kubelet-certificate-authority=${pki.caFile}`,
    '--kubelet-preferred-address-types=InternalIP',
  ];
}
