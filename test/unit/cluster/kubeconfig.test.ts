import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { impersonationHeaders, impersonationOf, loadKubeConfig } from '../../../src/cluster/transport/kubeconfig.ts';
import { KubeConfigError } from '../../../src/cluster/transport/kubeconfig-error.ts';

function kubeconfig(server: string, contexts: string[] = ['a'], current = contexts[0] ?? '', user = '    token: t'): string {
  const dir = mkdtempSync(join(tmpdir(), 'icd-kc-'));
  const file = join(dir, 'config');
  const yaml = [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${current}`,
    'clusters:',
    `- name: c\n  cluster:\n    server: ${server}`,
    'users:',
    `- name: u\n  user:\n${user}`,
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
  writeFileSync(join(dir, 'ca.crt'), 'the CA');
  return dir;
}

/** A FIFO nobody writes. */
function fifo(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'icd-fifo-')), 'fifo');
  execFileSync('mkfifo', [file]);
  return file;
}

/** No pod here: the in-cluster fallback finds no token. */
const NO_POD = '/nonexistent/serviceaccount';

const noHome = { HOME: '/nonexistent-home' };

describe('kubeconfig loading', () => {
  it('uses --kubeconfig first', async () => {
    const kc = await loadKubeConfig(
      { kubeconfig: kubeconfig('https://one:6443'), context: '' },
      { ...noHome, KUBECONFIG: kubeconfig('https://two:6443') },
      NO_POD,
    );
    expect(kc.getCurrentCluster()?.server).toBe('https://one:6443');
  });
  it('then $KUBECONFIG', async () => {
    const kc = await loadKubeConfig({ kubeconfig: '', context: '' }, { ...noHome, KUBECONFIG: kubeconfig('https://two:6443') }, NO_POD);
    expect(kc.getCurrentCluster()?.server).toBe('https://two:6443');
  });
  it('switches to --context and refuses an unknown one', async () => {
    const file = kubeconfig('https://one:6443', ['a', 'b']);
    expect((await loadKubeConfig({ kubeconfig: file, context: 'b' }, noHome, NO_POD)).getCurrentContext()).toBe('b');
    await expect(loadKubeConfig({ kubeconfig: file, context: 'zz' }, noHome, NO_POD)).rejects.toThrow(KubeConfigError);
  });
  it('falls back to the in-cluster ServiceAccount only without --kubeconfig and --context', async () => {
    const env = { ...noHome, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    const dir = serviceAccountDir();
    const kc = await loadKubeConfig({ kubeconfig: '', context: '' }, env, dir);
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'https://10.0.0.1:443', caData: Buffer.from('the CA').toString('base64') });
    await expect(loadKubeConfig({ kubeconfig: '', context: 'x' }, env, dir)).rejects.toThrow(/no kubeconfig found/);
  });
  it('in a pod without a mounted token, says where it looked', async () => {
    const env = { ...noHome, KUBERNETES_SERVICE_HOST: '10.0.0.1' };
    await expect(loadKubeConfig({ kubeconfig: '', context: '' }, env, NO_POD)).rejects.toThrow(
      `no ServiceAccount token is mounted at ${NO_POD}/token`,
    );
  });
  it('says so when nothing is there at all', async () => {
    await expect(loadKubeConfig({ kubeconfig: '', context: '' }, noHome, NO_POD)).rejects.toThrow(/no kubeconfig found/);
  });
  it('refuses a kubeconfig without a current context', async () => {
    await expect(loadKubeConfig({ kubeconfig: kubeconfig('https://one:6443', ['a'], ''), context: '' }, noHome, NO_POD)).rejects.toThrow(
      /no current context/,
    );
  });
});

describe('the files a kubeconfig names', () => {
  it('are read relative to the kubeconfig and handed to the client as data', async () => {
    const file = kubeconfig(
      'https://one:6443',
      ['a'],
      'a',
      '    client-certificate: cert.pem\n    client-key: key.pem\n    tokenFile: tok',
    );
    const dir = join(file, '..');
    writeFileSync(join(dir, 'cert.pem'), 'CERT');
    writeFileSync(join(dir, 'key.pem'), 'KEY');
    writeFileSync(join(dir, 'tok'), ' the-token\n');
    const user = (await loadKubeConfig({ kubeconfig: file, context: '' }, noHome, NO_POD)).getCurrentUser();
    expect(user).toMatchObject({
      certData: Buffer.from('CERT').toString('base64'),
      keyData: Buffer.from('KEY').toString('base64'),
      token: 'the-token',
    });
    expect(user?.certFile).toBeUndefined();
  });
  it('of users the context does not use are not read', async () => {
    const file = kubeconfig('https://one:6443', ['a'], 'a', '    token: t\n- name: other\n  user:\n    tokenFile: /nonexistent/token');
    const kc = await loadKubeConfig({ kubeconfig: file, context: '' }, noHome, NO_POD);
    expect(kc.getCurrentUser()?.token).toBe('t');
    expect(kc.getUsers().map((u) => u.name)).toEqual(['u', 'other']);
  });
  it.each([
    [
      'the kubeconfig itself',
      (f: string) => ({ kubeconfig: f, file: f }),
      /cannot load kubeconfig ".*" \(from --kubeconfig\): it is a FIFO, not a regular file/,
    ],
    [
      'its token file',
      (f: string) => ({ kubeconfig: kubeconfig('https://one:6443', ['a'], 'a', `    tokenFile: ${f}`), file: f }),
      /token file .*: it is a FIFO/,
    ],
    [
      'its client certificate',
      (f: string) => ({
        kubeconfig: kubeconfig('https://one:6443', ['a'], 'a', `    client-certificate: ${f}\n    client-key: ${f}`),
        file: f,
      }),
      /client certificate .*: it is a FIFO/,
    ],
  ])('refuses %s as a FIFO nobody writes, at once', async (_, setup, error) => {
    const { kubeconfig: file } = setup(fifo());
    await expect(loadKubeConfig({ kubeconfig: file, context: '' }, noHome, NO_POD)).rejects.toThrow(error);
  });
  it('names $KUBECONFIG when the file came from it', async () => {
    await expect(loadKubeConfig({ kubeconfig: '', context: '' }, { ...noHome, KUBECONFIG: fifo() }, NO_POD)).rejects.toThrow(
      /cannot load kubeconfig ".*" \(from \$KUBECONFIG\): it is a FIFO, not a regular file/,
    );
  });
  it('refuses /dev/zero as a kubeconfig, by what it is', async () => {
    await expect(loadKubeConfig({ kubeconfig: '/dev/zero', context: '' }, noHome, NO_POD)).rejects.toThrow(
      'cannot load kubeconfig "/dev/zero" (from --kubeconfig): it is a character device, not a regular file',
    );
  });
});

describe('read the way kubectl reads it', () => {
  const load = (file: string, env = noHome) => loadKubeConfig({ kubeconfig: file, context: '' }, env, NO_POD);
  const tokenIn = (content: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'icd-tok-')), 'token');
    writeFileSync(file, content);
    return file;
  };

  it.each([
    ['tokenFile alone', (f: string) => `    tokenFile: ${f}`, ' from-file\n', 'from-file'],
    [
      'token and tokenFile: the file wins, as client-go prefers what it re-reads',
      (f: string) => `    token: static\n    tokenFile: ${f}`,
      'from-file',
      'from-file',
    ],
    ['token and an empty tokenFile: the token stands', (f: string) => `    token: static\n    tokenFile: ${f}`, ' \n', 'static'],
    ['token and a missing tokenFile: the token stands', () => '    token: static\n    tokenFile: /nonexistent/token', '', 'static'],
    [
      'token-file is no kubeconfig field for kubectl: ignored',
      (f: string) => `    token: static\n    token-file: ${f}`,
      'from-file',
      'static',
    ],
  ])('%s', async (_what, user, content, token) => {
    const kc = await load(kubeconfig('https://one:6443', ['a'], 'a', user(tokenIn(content))));
    expect(kc.getCurrentUser()?.token).toBe(token);
  });

  it('a tokenFile without a token that holds nothing is an error, as kubectl says', async () => {
    await expect(load(kubeconfig('https://one:6443', ['a'], 'a', `    tokenFile: ${tokenIn('\n')}`))).rejects.toThrow(
      /token file .*: it holds no token/,
    );
  });

  it('several $KUBECONFIG files: the first to set a context, a cluster, a user of one name wins; a missing file is skipped', async () => {
    const first = kubeconfig('https://first:6443', ['a'], 'a', '    token: first-token');
    const second = kubeconfig('https://second:6443', ['a', 'b'], 'b', '    token: second-token');
    const env = { ...noHome, KUBECONFIG: [join(tmpdir(), 'icd-no-such-kubeconfig'), first, second].join(':') };
    const kc = await loadKubeConfig({ kubeconfig: '', context: '' }, env, NO_POD);
    expect(kc.getCurrentContext()).toBe('a');
    expect(kc.getCurrentCluster()?.server).toBe('https://first:6443');
    expect(kc.getCurrentUser()?.token).toBe('first-token');
    expect(kc.getContexts().map((c) => c.name)).toEqual(['a', 'b']);
  });

  it('impersonation: every field kubectl sends, one header each, an extra key escaped as client-go escapes it', async () => {
    const kc = await load(
      kubeconfig(
        'https://one:6443',
        ['a'],
        'a',
        '    token: t\n    as: jane\n    as-uid: "1234"\n    as-groups: [dev, ops]\n    as-user-extra:\n      scopes.example.com/tier: [gold, silver]',
      ),
    );
    expect(impersonationHeaders(impersonationOf(kc))).toEqual([
      ['Impersonate-User', 'jane'],
      ['Impersonate-Uid', '1234'],
      ['Impersonate-Group', 'dev'],
      ['Impersonate-Group', 'ops'],
      ['Impersonate-Extra-scopes.example.com%2Ftier', 'gold'],
      ['Impersonate-Extra-scopes.example.com%2Ftier', 'silver'],
    ]);
    expect(kc.getCurrentUser()?.impersonateUser).toBeUndefined();
  });
});
