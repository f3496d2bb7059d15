// A dumped pull secret projects to what the real one projected to, and holds no credential.
import { describe, expect, it } from 'vitest';

import { projectPullSecret, dumpedSecret, unreadSecret } from '../../../src/cluster/kinds/secret.ts';

const PASSWORD = 's3cret-pass';
const AUTH = Buffer.from(`robot:${PASSWORD}`).toString('base64');
const b64 = (text: string) => Buffer.from(text).toString('base64');
const secret = (type: string, data?: Record<string, string>) => ({
  metadata: { name: 's', namespace: 'ns', uid: 'u' },
  type,
  ...(data === undefined ? {} : { data }),
});

describe('dumpedSecret', () => {
  it.each([
    [
      'dockerconfigjson with credentials and an entry without',
      secret('kubernetes.io/dockerconfigjson', {
        '.dockerconfigjson': b64(JSON.stringify({ auths: { 'r.test': { auth: AUTH, password: PASSWORD }, 'open.test': {} } })),
      }),
    ],
    [
      'legacy dockercfg',
      secret('kubernetes.io/dockercfg', { '.dockercfg': b64(JSON.stringify({ 'r.test': { auth: AUTH, email: 'robot@r.test' } })) }),
    ],
    ['no key', secret('kubernetes.io/dockerconfigjson', {})],
    ['not JSON', secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64(`token ${PASSWORD}`) })],
    ['not base64', secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': `!!${PASSWORD}` })],
    ['not an object', secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64(JSON.stringify([PASSWORD])) })],
    ['no auths', secret('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64(JSON.stringify({ credsStore: PASSWORD })) })],
    ['Opaque', secret('Opaque', { password: b64(PASSWORD) })],
    ['no type', { metadata: { name: 's', namespace: 'ns' }, data: { password: b64(PASSWORD) } }],
  ])('%s', (_what, real) => {
    const dumped = dumpedSecret(real);
    expect(projectPullSecret(dumped)).toEqual(projectPullSecret(real));
    const text = JSON.stringify(dumped);
    for (const leak of [PASSWORD, AUTH, 'robot', b64(PASSWORD)]) expect(text).not.toContain(leak);
    const data = (dumped['data'] ?? {}) as Record<string, string>;
    for (const value of Object.values(data)) expect(Buffer.from(value, 'base64').toString()).not.toContain(PASSWORD);
  });

  it('keeps each registry host and whether it had credentials', () => {
    const real = secret('kubernetes.io/dockerconfigjson', {
      '.dockerconfigjson': b64(JSON.stringify({ auths: { 'r.test': { auth: AUTH }, 'open.test': {} } })),
    });
    const data = dumpedSecret(real)['data'] as Record<string, string>;
    expect(JSON.parse(Buffer.from(data['.dockerconfigjson'] ?? '', 'base64').toString())).toEqual({
      auths: { 'r.test': { auth: 'REDACTED' }, 'open.test': {} },
    });
  });

  it('records a read that failed', () => {
    expect(unreadSecret('ns', 's', 403, 'forbidden')).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'ns', annotations: { 'inferencecache.io/dump-read-error': '403 forbidden' } },
    });
  });
});
