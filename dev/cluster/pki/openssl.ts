// Small test PKIs made with the openssl CLI: a CA and certificates it signs, 30 days each. Shared by the
// control plane's PKI and the serving PKI of the kubelet and the tests' servers (../controlplane.ts, serving-pki.ts).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Runs openssl in `cwd`; its stderr is in the error when it fails. */
export function openssl(args: readonly string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed CA in `dir`: `ca.crt` and `ca.key`. */
export function createCa(dir: string, commonName: string): void {
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
      `/CN=${commonName}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
}

/** `<name>.crt` and `<name>.key` in `dir`, signed by its CA, with the extensions `ext` (openssl extfile syntax). */
export function signedCert(dir: string, name: string, subject: string, ext: string): void {
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
