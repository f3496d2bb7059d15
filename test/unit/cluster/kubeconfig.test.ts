import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubeConfigError, SERVICEACCOUNT_DIR, loadKubeConfig } from '../../../src/cluster/kubeconfig.ts';

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

function inClusterRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'icd-sa-'));
  mkdirSync(join(root, SERVICEACCOUNT_DIR), { recursive: true });
  writeFileSync(join(root, SERVICEACCOUNT_DIR, 'token'), 'tok');
  writeFileSync(join(root, SERVICEACCOUNT_DIR, 'ca.crt'), '');
  return root;
}

const noHome = { HOME: '/nonexistent-home' };

describe('kubeconfig loading', () => {
  it('uses --kubeconfig first', () => {
    const kc = loadKubeConfig({ kubeconfig: kubeconfig('https://one:6443'), context: '' }, { ...noHome, KUBECONFIG: kubeconfig('https://two:6443') });
    expect(kc.getCurrentCluster()?.server).toBe('https://one:6443');
  });
  it('then $KUBECONFIG', () => {
    const kc = loadKubeConfig({ kubeconfig: '', context: '' }, { ...noHome, KUBECONFIG: kubeconfig('https://two:6443') });
    expect(kc.getCurrentCluster()?.server).toBe('https://two:6443');
  });
  it('switches to --context and refuses an unknown one', () => {
    const file = kubeconfig('https://one:6443', ['a', 'b']);
    expect(loadKubeConfig({ kubeconfig: file, context: 'b' }, noHome).getCurrentContext()).toBe('b');
    expect(() => loadKubeConfig({ kubeconfig: file, context: 'zz' }, noHome)).toThrow(KubeConfigError);
  });
  it('falls back to the in-cluster ServiceAccount only without --kubeconfig and --context', () => {
    const env = { ...noHome, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443', INFERENCECACHE_SECRETS_ROOT: inClusterRoot() };
    expect(loadKubeConfig({ kubeconfig: '', context: '' }, env).getCurrentCluster()?.server).toBe('https://10.0.0.1:443');
    expect(() => loadKubeConfig({ kubeconfig: '', context: 'x' }, env)).toThrow(/no kubeconfig found/);
  });
  it('says so when nothing is there at all', () => {
    expect(() => loadKubeConfig({ kubeconfig: '', context: '' }, noHome)).toThrow(/no kubeconfig found/);
  });
  it('refuses a kubeconfig without a current context', () => {
    expect(() => loadKubeConfig({ kubeconfig: kubeconfig('https://one:6443', ['a'], ''), context: '' }, noHome)).toThrow(/no current context/);
  });
});
