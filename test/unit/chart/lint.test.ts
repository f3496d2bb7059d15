// `helm lint` (plain and --strict) is clean on Helm 3 and Helm 4 for every mode, and values.schema.json
// refuses values the chart cannot honour, each with a message that names the offending key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHART_DIR, helmBinaries, helmLint, helmTemplate, helmTemplateError, only, parentChart, skipReason, type Values } from '../../support/helm.ts';

const modes: { name: string; values?: Values }[] = [
  { name: 'defaults' },
  { name: 'dedicated identity', values: { identity: 'dedicated' } },
  { name: 'every hook', values: { hooks: { helmTest: true, postInstallUpgrade: true, argoCDPostSync: true } } },
  { name: 'Argo CD only', values: { hooks: { helmTest: false, postInstallUpgrade: false, argoCDPostSync: true } } },
  { name: 'server endpoint and digest', values: { serverEndpoint: '[fd00::1]:9090', image: { repository: 'r.example/d', tag: '', digest: `sha256:${'0'.repeat(64)}`, pullPolicy: 'Always' } } },
  { name: 'another namespace', values: { namespace: 'cache-prod' } },
  { name: 'waits and suppressions', values: { wait: { helmTestSeconds: 30, afterDeploySeconds: 600 }, suppress: ['CB004', 'CT001=cachetenant/batch/*'] } },
  { name: 'server TLS', values: { serverTLS: { enabled: true, secretName: 'cache-grpc-ca', caKey: 'bundle.pem', serverName: 'inference-cache-server.inference-cache-system.svc' } } },
];

const refused: { name: string; values: Values; message: RegExp }[] = [
  { name: 'an unknown identity', values: { identity: 'bogus' }, message: /identity/ },
  { name: 'a negative expiry', values: { token: { expirationSeconds: -1 } }, message: /expirationSeconds/ },
  { name: 'an expiry under the API server\'s 10 minutes', values: { token: { expirationSeconds: 599 } }, message: /expirationSeconds/ },
  { name: 'an expiry that is not a whole number', values: { token: { expirationSeconds: 600.5 } }, message: /expirationSeconds/ },
  { name: 'an empty audience', values: { token: { audience: '' } }, message: /audience/ },
  { name: 'an unknown top-level key', values: { identityMode: 'controller' }, message: /identityMode/ },
  { name: 'an unknown nested key', values: { token: { path: '/tmp/token' } }, message: /path/ },
  { name: 'an unknown hook', values: { hooks: { preInstall: true } }, message: /preInstall/ },
  { name: 'a hook switch that is a string', values: { hooks: { helmTest: 'yes' } }, message: /helmTest/ },
  { name: 'no hook at all', values: { hooks: { helmTest: false, postInstallUpgrade: false, argoCDPostSync: false } }, message: /hooks/ },
  { name: 'a timeout as a duration string', values: { timeoutSeconds: '30s' }, message: /timeoutSeconds/ },
  { name: 'a zero timeout', values: { timeoutSeconds: 0 }, message: /timeoutSeconds/ },
  { name: 'a margin too small to start a pod', values: { activeDeadlineMarginSeconds: 1 }, message: /activeDeadlineMarginSeconds/ },
  { name: 'labels as a list', values: { controller: { labels: ['app=x'] } }, message: /labels/ },
  { name: 'every controller label removed', values: { controller: { labels: { 'app.kubernetes.io/name': null, 'app.kubernetes.io/component': null } } }, message: /labels/ },
  { name: 'pod-template-hash among the labels', values: { controller: { labels: { 'pod-template-hash': 'abc' } } }, message: /pod-template-hash/ },
  { name: 'a label value that is not a string', values: { controller: { labels: { tier: 3 } } }, message: /tier|string/ },
  { name: 'a namespace that is not a DNS label', values: { namespace: 'Cache_System' }, message: /namespace/ },
  { name: 'a server endpoint with a scheme', values: { serverEndpoint: 'http://server:9090' }, message: /serverEndpoint/ },
  { name: 'a TLS Secret name that is not a DNS subdomain', values: { serverTLS: { secretName: 'Server_TLS' } }, message: /secretName/ },
  { name: 'an empty TLS Secret name', values: { serverTLS: { secretName: '' } }, message: /secretName/ },
  { name: 'an unknown key under serverTLS', values: { serverTLS: { caFile: '/etc/ca.crt' } }, message: /caFile/ },
  { name: 'a client key under serverTLS (the chart mounts none)', values: { serverTLS: { certFile: 'tls.crt', keyFile: 'tls.key' } }, message: /certFile|keyFile/ },
  { name: 'a CA key that is a path', values: { serverTLS: { caKey: 'certs/ca.crt' } }, message: /caKey/ },
  { name: 'a CA key of ..', values: { serverTLS: { caKey: '..' } }, message: /caKey/ },
  { name: 'serverTLS.enabled as a string', values: { serverTLS: { enabled: 'true' } }, message: /enabled/ },
  { name: 'a server name with a port', values: { serverTLS: { serverName: 'server:9090' } }, message: /serverName/ },
  { name: 'a digest without its algorithm', values: { image: { digest: '0'.repeat(64) } }, message: /digest/ },
  { name: 'an unknown pull policy', values: { image: { pullPolicy: 'Sometimes' } }, message: /pullPolicy/ },
  { name: 'pull secrets as strings', values: { imagePullSecrets: ['creds'] }, message: /imagePullSecrets/ },
  { name: 'a failOn that is no status', values: { failOn: 'error' }, message: /failOn/ },
  { name: 'a wait as a duration string', values: { wait: { afterDeploySeconds: '5m' } }, message: /afterDeploySeconds/ },
  { name: 'a negative wait', values: { wait: { helmTestSeconds: -1 } }, message: /helmTestSeconds/ },
  { name: 'an unknown wait key', values: { wait: { postSync: 60 } }, message: /postSync/ },
  { name: 'a suppression rule that is no code', values: { suppress: ['cb004'] }, message: /suppress/ },
  { name: 'a suppression rule with an empty glob', values: { suppress: ['CB004='] }, message: /suppress/ },
  { name: 'a failOn in upper case', values: { failOn: 'FAIL' }, message: /failOn/ },
  { name: 'a resource that is not a quantity', values: { resources: { limits: { memory: 'lots' } } }, message: /memory/ },
  { name: 'an unknown resources key', values: { resources: { claims: [] } }, message: /claims/ },
  { name: 'rbac.create as a string', values: { rbac: { create: 'true' } }, message: /create/ },
  { name: 'node selector values that are not strings', values: { nodeSelector: { gpu: true } }, message: /nodeSelector|gpu/ },
];

describe('values.schema.json', () => {
  it('is strict at every level: no object without additionalProperties false, except free-form maps', () => {
    const schema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as Record<string, unknown>;
    const loose: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as Record<string, unknown>;
      if (n['type'] === 'object' && n['properties'] !== undefined && n['additionalProperties'] !== false) loose.push(path);
      for (const [key, child] of Object.entries(n)) walk(child, `${path}/${key}`);
    };
    walk(schema, '');
    expect(loose).toEqual([]);
  });
});

for (const helm of helmBinaries()) {
  const skip = skipReason(helm);
  describe.skipIf(skip !== '')(`${helm.name}${skip === '' ? '' : ` (skipped: ${skip})`}`, () => {
    describe.each(modes)('lint with $name', ({ values }) => {
      it.each([false, true])('is clean (strict %s)', (strict) => {
        const run = helmLint(helm, { strict, namespace: 'inference-cache-system', ...(values === undefined ? {} : { values }) });
        expect(run.stderr + run.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
        expect(run.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
        expect(run.code).toBe(0);
      });
    });

    describe('as a subchart, with global values set by the parent', () => {
      const parent = () => parentChart({ global: { imageRegistry: 'mirror.example' }, 'inferencecache-doctor': { identity: 'dedicated', timeoutSeconds: 45 } });

      it('lints clean (strict), parent and subchart', () => {
        const run = helmLint(helm, { strict: true, namespace: 'inference-cache-system', chartDir: parent() });
        expect(run.stderr + run.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
        expect(run.stdout).toMatch(/2 chart\(s\) linted, 0 chart\(s\) failed/);
        expect(run.code).toBe(0);
      });

      it('renders the pod with the values the parent passes down', () => {
        const pod = only(helmTemplate(helm, { release: 'stack', namespace: 'inference-cache-system', chartDir: parent() }), 'Pod') as { spec?: { serviceAccountName?: string; containers?: { args?: string[] }[] } } & ReturnType<typeof only>;
        expect(pod.metadata.name).toBe('stack-inferencecache-doctor');
        expect(pod.spec?.serviceAccountName).toBe('stack-inferencecache-doctor');
        expect(pod.spec?.containers?.[0]?.args).toEqual(expect.arrayContaining(['--timeout', '45s']));
      });

      it('still refuses a wrong value passed down', () => {
        const stderr = helmTemplateError(helm, { namespace: 'inference-cache-system', chartDir: parentChart({ 'inferencecache-doctor': { identity: 'bogus' } }) });
        expect(stderr).toMatch(/identity/);
      });
    });

    it.each(refused)('refuses $name', ({ values, message }) => {
      const stderr = helmTemplateError(helm, { namespace: 'inference-cache-system', values });
      expect(stderr).toMatch(message);
      expect(stderr).toMatch(/schema|hooks: enable at least one/);
      const lint = helmLint(helm, { strict: true, namespace: 'inference-cache-system', values });
      expect(lint.code).not.toBe(0);
    });
  });
}
