// The Kinds, declared once (src/cluster/kinds/): every Kind says how a dump writes it, the policies do
// what they say (docs/offline.md lists them, from the same declarations), and the reads catalogue holds
// one read per listed Kind besides the views.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { DUMP_POLICIES_MARKERS, dumpPoliciesMarkdown, dumpPolicyProblems } from '../../../src/cluster/kinds/dump-markdown.ts';
import { LAST_APPLIED, dumpedObject, redacted } from '../../../src/cluster/kinds/dump-policy.ts';
import { KINDS, kindEntries } from '../../../src/cluster/kinds/kinds.ts';
import { READS, listsOf } from '../../../src/cluster/state/reads.ts';
import { planRun } from '../../../src/checks/registry.ts';
import { withRegion } from '../../../src/text/generated-region.ts';

describe('every Kind declares how a dump writes it', () => {
  it('each policy is one the dump can apply', () => {
    expect(kindEntries().length).toBeGreaterThanOrEqual(10);
    expect(dumpPolicyProblems(kindEntries())).toEqual([]);
  });

  it('a Kind without a policy, a redaction without paths, or one without a reason is caught', () => {
    const { access, kind, reads, project } = KINDS.cacheBackends;
    expect(
      dumpPolicyProblems([
        ['configMaps', { kind: 'ConfigMap', access, reads, project }],
        ['a', { kind, access, reads, project, dump: { write: 'redacted', remove: ['data.*'], why: 'values' } }],
        ['b', { kind, access, reads, project, dump: { write: 'redacted', remove: ['data'], why: ' ' } }],
      ]),
    ).toEqual([
      'configMaps: no dump policy (say how inferencecache dump writes it)',
      'a: a redaction needs dotted paths of field names (`spec.containers[].env[].value`)',
      'b: say why its objects are not written whole',
    ]);
  });

  it('docs/offline.md lists each Kind with what a dump writes of it (run `npm run docs` after changing one)', () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs/offline.md'), 'utf8');
    expect(withRegion(page, DUMP_POLICIES_MARKERS, dumpPoliciesMarkdown()), 'docs/offline.md is stale: run `npm run docs`').toBe(page);
    expect(dumpPoliciesMarkdown().split('\n')).toHaveLength(kindEntries().length + 3);
  });
});

describe('the policies as applied', () => {
  const pod = {
    metadata: {
      name: 'p',
      managedFields: [{ manager: 'kubectl' }],
      annotations: { [LAST_APPLIED]: '{"spec":{"containers":[{"env":[{"value":"s3cret"}]}]}}', keep: 'me' },
    },
    spec: {
      initContainers: [
        {
          name: 'i',
          env: [
            { name: 'A', value: 's3cret' },
            { name: 'B', valueFrom: { secretKeyRef: { name: 'x' } } },
          ],
        },
      ],
      containers: [{ name: 'c', env: [{ name: 'C', value: 's3cret' }], args: ['--flag'] }, 'not an object'],
    },
  };

  it('a Pod is written without its literal env values, managedFields or last-applied configuration, apiVersion and kind first', () => {
    const written = dumpedObject(KINDS.pods, pod);
    expect(Object.keys(written).slice(0, 2)).toEqual(['apiVersion', 'kind']);
    expect(written).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', annotations: { keep: 'me' } },
      spec: {
        initContainers: [{ name: 'i', env: [{ name: 'A' }, { name: 'B', valueFrom: { secretKeyRef: { name: 'x' } } }] }],
        containers: [{ name: 'c', env: [{ name: 'C' }], args: ['--flag'] }, 'not an object'],
      },
    });
    expect(JSON.stringify(written)).not.toContain('s3cret');
  });

  it('a Kind written whole keeps everything but managedFields and the last-applied configuration', () => {
    expect(dumpedObject(KINDS.cacheBackends, { metadata: { name: 'b', managedFields: [] }, spec: { x: 1 } })).toEqual({
      apiVersion: 'inferencecache.io/v1alpha1',
      kind: 'CacheBackend',
      metadata: { name: 'b' },
      spec: { x: 1 },
    });
  });

  it('a Secret is never written, only its stand-in', () => {
    const secret = { metadata: { name: 's', namespace: 'n', uid: 'u' }, type: 'Opaque', data: { password: 'czNjcmV0' } };
    expect(dumpedObject(KINDS.secrets, secret)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'n', uid: 'u' },
      type: 'Opaque',
    });
  });

  it('a path that leads nowhere, or through something that is no object or list, changes nothing', () => {
    const value = { a: { b: 'x' }, l: 'not a list' };
    expect(redacted(value, ['a.c', 'z.y', 'l[].v', 'a.b.c'])).toEqual(value);
    expect(redacted(value, ['a.b'])).toEqual({ a: {}, l: 'not a list' });
  });
});

describe('the reads catalogue', () => {
  it('holds a read named after each Kind read as a whole list, for that Kind', () => {
    for (const [name, kind] of kindEntries()) {
      if (kind.reads !== 'list') continue;
      expect(READS[name as keyof typeof READS], name).toMatchObject({ kind: kind.kind, access: kind.access, collection: name });
    }
  });

  it('a --config-only run lists the Kinds its checks read, each once, in catalogue order (the bench floor lists the same)', () => {
    const lists = listsOf(planRun({ configOnly: true }).reads);
    const order = kindEntries().map(([name]) => name);
    expect(lists).toEqual(order.filter((name) => lists.includes(name as (typeof lists)[number])));
    expect(lists).toEqual(
      expect.arrayContaining([
        'cacheBackends',
        'pods',
        'events',
        'cacheTenants',
        'cachePolicies',
        'nodes',
        'serviceAccounts',
        'namespaces',
      ]),
    );
    expect(lists).not.toContain('networkPolicies');
    expect(listsOf(['installPods'])).toEqual(['cacheBackends', 'pods']);
    expect(listsOf(['scopeNamespace', 'pullSecrets'])).toEqual(['cacheBackends', 'pods', 'serviceAccounts']);
  });
});
