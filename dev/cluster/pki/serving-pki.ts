/**
 * A small PKI for one HTTPS server and its one client, made with the openssl CLI like the control
 * plane's own: a CA, a serving certificate for the server's names and addresses, and a client
 * certificate the same CA signed. The real node's kubelet serves with it (kube-apiserver is the
 * client: see `node/kubelet.ts`), and so do the tests' TLS proxies.
 *
 * @module
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { createCa, signedCert } from './openssl.ts';

/** The files of a serving PKI (PEM). */
export interface ServingPki {
  /** The CA that signed both certificates; the server trusts client certificates it signed. */
  readonly caFile: string;
  readonly servingCert: string;
  readonly servingKey: string;
  /** The client's certificate (for the kubelet: what kube-apiserver presents). */
  readonly clientCert: string;
  readonly clientKey: string;
}

/**
 * Creates a CA, a serving certificate for `hostName` and `ips` (default 127.0.0.1) and a client
 * certificate in `dir`. The serving certificate's subject is a node's (`system:node:<hostName>`), as a
 * kubelet's must be; any other server ignores it.
 */
export function createServingPki(dir: string, hostName = 'test-node', ips: readonly string[] = ['127.0.0.1']): ServingPki {
  fs.mkdirSync(dir, { recursive: true });
  createCa(dir, 'inferencecache-test-serving-ca');
  signedCert(
    dir,
    'serving',
    `/CN=system:node:${hostName}/O=system:nodes`,
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')},DNS:${hostName}\n`,
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
    clientCert: path.join(dir, 'apiserver-kubelet-client.crt'),
    clientKey: path.join(dir, 'apiserver-kubelet-client.key'),
  };
}
