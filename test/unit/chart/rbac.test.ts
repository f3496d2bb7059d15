// The chart's ClusterRole grants exactly the API accesses the checks declare (src/checks/registry.ts),
// verb for verb, and nothing that writes: the comparison runs in both directions, and is shown to
// catch a gap and an excess.
import { describe, expect, it } from 'vitest';
import { apiAccesses } from '../../../src/checks/registry.ts';

import { helmBinaries, helmTemplate, only, skipReason } from '../../support/helm.ts';
import { compareGrants, grantsOfRules, type PolicyRule } from './grants.ts';
import type { ApiAccess } from '../../../src/cluster/kinds/access.ts';

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

describe('compareGrants', () => {
  const reads: ApiAccess[] = [
    { group: '', version: 'v1', resource: 'pods', verbs: ['list'], namespaced: true },
    { group: '', version: 'v1', resource: 'services', verbs: ['get', 'list'], namespaced: true },
    { group: '', version: 'v1', resource: 'secrets', verbs: ['get'], namespaced: true, byNameOnly: true },
  ];
  const cases: { name: string; rules: PolicyRule[]; missing: string[]; extra: string[] }[] = [
    { name: 'exact', rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }, { apiGroups: [''], resources: ['services'], verbs: ['get', 'list'] }], missing: [], extra: [] },
    { name: 'grouped differently, still exact', rules: [{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['list'] }, { apiGroups: [''], resources: ['services'], verbs: ['get'] }], missing: [], extra: [] },
    { name: 'a verb short', rules: [{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['list'] }], missing: ['core/services:get'], extra: [] },
    { name: 'a verb too many', rules: [{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list'] }], missing: [], extra: ['core/pods:get'] },
    { name: 'a wildcard', rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], missing: ['core/pods:list', 'core/services:get', 'core/services:list'], extra: ['*/*:*'] },
    { name: 'a by-name read granted in general', rules: [{ apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['list'] }, { apiGroups: [''], resources: ['services', 'secrets'], verbs: ['get'] }, { apiGroups: [''], resources: ['services'], verbs: ['list'] }], missing: [], extra: ['core/secrets:get', 'core/secrets:list'] },
    { name: 'the wrong group', rules: [{ apiGroups: ['apps'], resources: ['pods'], verbs: ['list'] }, { apiGroups: [''], resources: ['services'], verbs: ['get', 'list'] }], missing: ['core/pods:list'], extra: ['apps/pods:list'] },
  ];
  it.each(cases)('$name', ({ rules, missing, extra }) => {
    expect(compareGrants(rules, reads)).toEqual({ missing, extra });
  });
});

for (const helm of helmBinaries()) {
  const skip = skipReason(helm);
  describe.skipIf(skip !== '')(`the chart's ClusterRole on ${helm.name}${skip === '' ? '' : ` (skipped: ${skip})`}`, () => {
    const rules = () => (only(helmTemplate(helm, { namespace: 'inference-cache-system' }), 'ClusterRole') as unknown as { rules: PolicyRule[] }).rules;

    it('grants exactly the declared reads, in both directions', () => {
      expect(compareGrants(rules(), apiAccesses())).toEqual({ missing: [], extra: [] });
    });

    it('grants reads by name only for the pull secrets an operator names', () => {
      const named = (only(helmTemplate(helm, { namespace: 'inference-cache-system', values: { rbac: { pullSecretNames: ['regcred', 'mirror-pull'] } } }), 'ClusterRole') as unknown as {
        rules: PolicyRule[];
      }).rules;
      expect(compareGrants(named, apiAccesses(), true)).toEqual({ missing: [], extra: [] });
      expect(named.filter((r) => r.resources?.includes('secrets'))).toEqual([{ apiGroups: [''], resources: ['secrets'], resourceNames: ['regcred', 'mirror-pull'], verbs: ['get'] }]);
      expect(compareGrants(rules(), apiAccesses(), true).missing).toEqual(['core/secrets:get@named']);
    });

    it('holds read-only verbs only, with no names, URLs or wildcards', () => {
      for (const rule of rules()) {
        expect(rule.verbs?.every((v) => READ_ONLY_VERBS.has(v))).toBe(true);
        expect(rule).not.toHaveProperty('resourceNames');
        expect(rule).not.toHaveProperty('nonResourceURLs');
        expect([...grantsOfRules([rule])].some((g) => g.includes('*'))).toBe(false);
      }
    });

    it('is the only role the chart renders (no Role, no aggregation)', () => {
      const objects = helmTemplate(helm, { namespace: 'inference-cache-system', values: { identity: 'dedicated' } });
      expect(objects.filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding')).toEqual([]);
      expect(only(objects, 'ClusterRole')).not.toHaveProperty('aggregationRule');
    });
  });
}
