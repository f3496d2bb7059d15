// What a dump never writes: a URL's credentials in any string (a pull secret's registry key
// included), a secret-looking flag's value in a container's command line; and what it keeps.
import { describe, expect, it } from 'vitest';
import { dumpedObject, maskedCommandLine, withoutUrlCredentials } from '../../../src/cluster/kinds/dump-policy.ts';
import { POD_KIND } from '../../../src/cluster/kinds/pod.ts';
import { CACHE_BACKEND_KIND } from '../../../src/cluster/kinds/cache-backend.ts';
import { dumpedSecret, projectPullSecret, registryKeyWithoutCredentials } from '../../../src/cluster/kinds/secret.ts';
import { leakIn } from '../../support/leak-forms.ts';

const PASSWORD = 'pa55-w0rd@x';
const TOKEN = 'tok-9f8e7d6c5b4a';

describe('URL credentials', () => {
  it.each([
    ['https://user:pw@host/path', 'https://REDACTED@host/path'],
    [`redis://:${PASSWORD}@redis.svc:6379/0`, 'redis://REDACTED@redis.svc:6379/0'],
    ['see https://a:b@x and s3://k:s@bucket', 'see https://REDACTED@x and s3://REDACTED@bucket'],
    ['https://host/path?x=a@b', 'https://host/path?x=a@b'],
    ['mailto:someone@example', 'mailto:someone@example'],
    ['no url here', 'no url here'],
  ])('%s', (text, written) => {
    expect(withoutUrlCredentials(text)).toBe(written);
  });

  it.each([
    [`https://robot:${PASSWORD}@registry.test:5000/v2/`, 'https://REDACTED@registry.test:5000/v2/'],
    [`robot:${PASSWORD}@registry.test`, 'REDACTED@registry.test'],
    [`registry.test/v2/?access_token=${TOKEN}`, 'registry.test/v2/'],
    ['registry.test:5000', 'registry.test:5000'],
  ])('registry key %s', (key, written) => {
    expect(registryKeyWithoutCredentials(key)).toBe(written);
  });

  it('a pull secret whose registry keys carry credentials: none written, the count the checks read kept', () => {
    const auths = {
      [`https://robot:${PASSWORD}@registry.test`]: { auth: Buffer.from(`robot:${PASSWORD}`).toString('base64') },
      [`https://other:${TOKEN}@registry.test`]: {},
      [`registry.test?token=${TOKEN}`]: {},
    };
    const real = {
      metadata: { name: 'pull', namespace: 'ns', uid: 'u' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths })).toString('base64') },
    };
    const dumped = dumpedSecret(real);
    expect(projectPullSecret(dumped)).toEqual(projectPullSecret(real));
    const data = (dumped['data'] as Record<string, string>)['.dockerconfigjson'] as string;
    const text = `${JSON.stringify(dumped)}\n${Buffer.from(data, 'base64').toString()}`;
    expect(leakIn(text, [PASSWORD, TOKEN])).toBeUndefined();
  });

  it('any Kind: every string and key of the object', () => {
    const backend = {
      metadata: { name: 'b', namespace: 'ns', annotations: { [`https://u:${TOKEN}@x`]: `redis://:${PASSWORD}@redis:6379` } },
      spec: { remoteStorage: { endpoint: `redis://default:${PASSWORD}@redis.cache.svc:6379` } },
    };
    const written = JSON.stringify(dumpedObject(CACHE_BACKEND_KIND, backend));
    expect(leakIn(written, [PASSWORD, TOKEN])).toBeUndefined();
    expect(written).toContain('redis://REDACTED@redis.cache.svc:6379');
  });
});

describe('container command lines', () => {
  it.each([
    [
      ['--password=hunter2', '--port=8080'],
      ['--password=REDACTED', '--port=8080'],
    ],
    [
      ['--token', 'abc', '--verbose'],
      ['--token', 'REDACTED', '--verbose'],
    ],
    [
      ['--api-key', '--next'],
      ['--api-key', '--next'],
    ],
    [
      ['sh', '-c', 'API_KEY=abc ./run --db-password xyz --log=debug'],
      ['sh', '-c', 'API_KEY=REDACTED ./run --db-password REDACTED --log=debug'],
    ],
    [
      ['--tls-private-key-file=/etc/tls/key.pem', '--client-secret-path', '/s'],
      ['--tls-private-key-file=/etc/tls/key.pem', '--client-secret-path', '/s'],
    ],
    [['--secret:abc'], ['--secret:REDACTED']],
    [
      ['serve', '--grpc-port=9090', '--auth-token', 'x', 'y'],
      ['serve', '--grpc-port=9090', '--auth-token', 'REDACTED', 'y'],
    ],
    [
      [3, '--password', 'p'],
      [3, '--password', 'REDACTED'],
    ],
  ])('%j', (words, written) => {
    expect(maskedCommandLine(words)).toEqual(written);
  });

  it('a Pod as dumped: env values gone, command lines masked, the rest as read', () => {
    const container = {
      name: 'engine',
      image: 'vllm:1',
      command: ['python', '-m', 'engine', `--hf-token=${TOKEN}`],
      args: ['--redis', `redis://:${PASSWORD}@r:6379`, '--password', PASSWORD],
      env: [{ name: 'HF_TOKEN', value: TOKEN }],
    };
    const pod = { metadata: { name: 'p', namespace: 'ns' }, spec: { initContainers: [container], containers: [container] } };
    const written = dumpedObject(POD_KIND, pod);
    expect(leakIn(JSON.stringify(written), [PASSWORD, TOKEN])).toBeUndefined();
    const spec = written['spec'] as { containers: { command: string[]; args: string[]; env: unknown[]; image: string }[] };
    expect(spec.containers[0]?.command).toEqual(['python', '-m', 'engine', '--hf-token=REDACTED']);
    expect(spec.containers[0]?.args).toEqual(['--redis', 'redis://REDACTED@r:6379', '--password', 'REDACTED']);
    expect(spec.containers[0]?.env).toEqual([{ name: 'HF_TOKEN' }]);
    expect(spec.containers[0]?.image).toBe('vllm:1');
  });
});
