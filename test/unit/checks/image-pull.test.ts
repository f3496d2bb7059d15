import { describe, expect, it } from 'vitest';
import { judge } from '../../../src/checks/registry.ts';
import { projectPullSecret } from '../../../src/cluster/kinds/secret.ts';
import { makeReport } from '../../../src/report/finding.ts';
import { REPORT_FORMATS, render } from '../../support/render.ts';
import { ok, pod } from './fixtures.ts';
import { WORKLOAD_LABELS, live, secrets } from './install-fixtures.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('secret content never reaches the report', () => {
  const password = 'hunter2-Sekr3t-Pa55';
  const auth = b64(`robot:${password}`);
  const host = 'private-registry.test:5000';
  const documents = {
    valid: {
      type: 'kubernetes.io/dockerconfigjson',
      key: '.dockerconfigjson',
      json: JSON.stringify({ auths: { [host]: { auth, password } } }),
    },
    noauths: { type: 'kubernetes.io/dockerconfigjson', key: '.dockerconfigjson', json: JSON.stringify({ credsStore: password }) },
    broken: { type: 'kubernetes.io/dockerconfigjson', key: '.dockerconfigjson', json: `{"auths": {"${host}": "${password}"` },
    legacy: { type: 'kubernetes.io/dockercfg', key: '.dockercfg', json: JSON.stringify({ [host]: { auth, email: 'robot@example.test' } }) },
    opaque: { type: 'Opaque', key: '.dockerconfigjson', json: JSON.stringify({ auths: { [host]: { auth } } }) },
  } as const;
  const lookups = Object.fromEntries(
    Object.entries(documents).map(([name, d]) => [
      name,
      projectPullSecret({ metadata: { name, namespace: 'ns1' }, type: d.type, data: { [d.key]: b64(d.json) } }),
    ]),
  );
  const input = live({
    pods: ok([pod('p', { labels: { ...WORKLOAD_LABELS }, phase: 'Running', imagePullSecrets: Object.keys(documents) })]),
    pullSecrets: secrets(lookups),
  });
  const report = makeReport(judge(input));
  const forbidden = [password, auth, host, 'robot', ...Object.values(documents).flatMap((d) => [d.json, b64(d.json)])];

  it('the projection keeps type and shape only', () => {
    expect(JSON.stringify(lookups)).not.toMatch(/hunter2|robot|private-registry|auth"/);
    expect(report.findings.map((f) => f.code)).toEqual(['IP006', 'IP003', 'IP003', 'IP006', 'IP002']);
  });
  it.each(REPORT_FORMATS)('%s output carries no byte of any secret', (format) => {
    const out = render(report, format, { color: format === 'human' });
    for (const secret of forbidden) expect(out).not.toContain(secret);
  });
});
