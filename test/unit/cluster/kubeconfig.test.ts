import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubeConfigError, loadKubeConfig } from '../../../src/cluster/kubeconfig.ts';

function kubeconfig(server: string, contexts: string[] = ['a'], current = contexts[0] ?? ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'icd-kc-'));
  const file = join(dir, 'config');
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${current}`,
    'clusters:',
    `- name: c\n  cluster:\n    server: ${server}`,
    'users:',
    '- name: u\n  user:\n    token: t',
    'contexts:',
    ...contexts.map((c) => `- name: ${c}\n  context:\n    cluster: c\n    user: u`),
  ];
  writeFileSync(file, `${yaml.join('\n')}\n`);
  return file;
}

/** A ServiceAccount directory as a pod has it: token and CA. */
function serviceAccountDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'icd-sa-')), 'serviceaccount');
  mkdirSync(dir);
  writeFileSync(join(dir, 'token'), 'tok');
  writeFileSync(join(dir, 'ca.crt'), '');
  return dir;
}

/** No pod here: the in-cluster fallback finds no token. */
const NO_POD = '/nonexistent/serviceaccount';

const noHome = { HOME: '/nonexistent-home' };

describe('kubeconfig loading', () => {
  it('uses --kubeconfig first', () => {
    const kc = loadKubeConfig(
      { kubeconfig: kubeconfig('https://one:6443'), context: '' },
      { ...noHome, KUBECONFIG: kubeconfig('https://two:6443') },
      NO_POD,
    );
    expect(kc.getCurrentCluster()?.server).toBe('https://one:6443');
  });
  it('then $KUBECONFIG', () => {
    const kc = loadKubeConfig({ kubeconfig: '', context: '' }, { ...noHome, KUBECONFIG: kubeconfig('https://two:6443') }, NO_POD);
    expect(kc.getCurrentCluster()?.server).toBe('https://two:6443');
  });
  it('switches to --context and refuses an unknown one', () => {
    const file = kubeconfig('https://one:6443', ['a', 'b']);
    expect(loadKubeConfig({ kubeconfig: file, context: 'b' }, noHome, NO_POD).getCurrentContext()).toBe('b');
    expect(() => loadKubeConfig({ kubeconfig: file, context: 'zz' }, noHome, NO_POD)).toThrow(KubeConfigError);
  });
  it('falls back to the in-cluster ServiceAccount only without --kubeconfig and --context', () => {
    const env = { ...noHome, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const dir = serviceAccountDir();
    const kc = loadKubeConfig({ kubeconfig: '', context: '' }, env, dir);
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'https://10.0.0.1:443', caFile: join(dir, 'ca.crt') });
    expect(() => loadKubeConfig({ kubeconfig: '', context: 'x' }, env, dir)).toThrow(/no kubeconfig found/);
  });
  it('in a pod without a mounted token, says where it looked', () => {
    const env = { ...noHome, KUBERNETES_SERVICE_HOST: '10.0.0.1' };
    expect(() => loadKubeConfig({ kubeconfig: '', context: '' }, env, NO_POD)).toThrow(
      `no ServiceAccount token is mounted at ${NO_POD}/token`,
    );
  });
  it('says so when nothing is there at all', () => {
    expect(() => loadKubeConfig({ kubeconfig: '', context: '' }, noHome, NO_POD)).toThrow(/no kubeconfig found/);
  });
  it('refuses a kubeconfig without a current context', () => {
    expect(() => loadKubeConfig({ kubeconfig: kubeconfig('https://one:6443', ['a'], ''), context: '' }, noHome, NO_POD)).toThrow(
      /no current context/,
    );
  });
});
