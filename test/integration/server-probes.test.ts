// The built bundle against a healthy sample install: the reference cache-plane server authenticating
// with real TokenReview against the test control plane, and real TokenRequest tokens for the doctor.
// Each server fault is switched on, judged, and switched off again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { completedRequestsBy, writesBy } from '../../dev/cluster/audit.ts';
import { requireBundle } from '../../dev/bundle.ts';
import { runBundle } from '../support/bundle.ts';
import { pairs, type JsonReport } from '../support/json-report.ts';
import { uniqueName } from '../../dev/cluster/objects.ts';
import { INSTALL_NAMESPACE, createNamespace } from '../../dev/cluster/manifests.ts';
import { doctorIdentity, requestToken, type Identity } from '../../dev/cluster/identity.ts';
import { DEFAULT_CONTROLLER_AUDIENCE } from '../../dev/cluster/reference-server/server.ts';
import { startLateProxy } from '../support/servers/late-proxy.ts';
import {
  CONTROLLER_SERVICE_ACCOUNT,
  SNAPSHOT_PORT,
  startSampleInstall,
  type SampleInstall,
} from '../../dev/cluster/sample-install-local.ts';

const kubeconfig = inject('kubeconfig');
const skipReason = kubeconfig === '' ? ` (skipped: ${inject('controlPlaneSkipReason')})` : '';

describe.skipIf(kubeconfig === '')(`server probes against the reference server${skipReason}`, () => {
  const kc = new KubeConfig();
  const dir = mkdtempSync(join(tmpdir(), 'icd-server-'));
  let install: SampleInstall;
  let doctor: Identity;

  const tokenFile = (name: string, token: string) => {
    const file = join(dir, name);
    writeFileSync(file, `${token}\n`);
    return file;
  };
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const result = await runBundle(
      [
        'doctor',
        '--kubeconfig',
        doctor.kubeconfig,
        '-o',
        'json',
        '-n',
        install.workloadNamespace,
        '--server-endpoint',
        install.serverEndpoint,
        ...args,
      ],
      { env: { PATH: process.env['PATH'] ?? '', ...env } },
    );
    return { ...result, report: JSON.parse(result.stdout) as JsonReport };
  };
  const serverCodes = (report: JsonReport) => pairs(report, (f) => /^(SV|SN|PL|PB)/.test(f.code)).map(([code]) => code);
  const message = (report: JsonReport, code: string) => report.findings.find((f) => f.code === code)?.message ?? '';

  beforeAll(async () => {
    requireBundle();
    kc.loadFromFile(kubeconfig);
    install = await startSampleInstall(kc, {
      server: inject('server'),
      caFile: inject('caFile'),
      dir,
      workloadNamespace: uniqueName('healthy'),
    });
    const home = uniqueName('probe-home');
    await createNamespace(kc, home);
    doctor = await doctorIdentity(kc, { namespace: home, name: 'doctor', server: inject('server'), caFile: inject('caFile') });
  });
  afterAll(async () => {
    await install?.stop();
  });

  it('a healthy install is all OK and exits 0', async () => {
    const { code, report } = await run(['--snapshot-token-file', install.tokenFile]);
    expect(report.findings.filter((f) => f.status !== 'OK')).toEqual([]);
    expect(serverCodes(report)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
    expect(pairs(report, (f) => !/^(SV|SN|PL|PB)/.test(f.code))).toEqual([
      ['CB006', `cachebackend/${install.workloadNamespace}/chat`],
      ['EP002', `pod/${install.workloadNamespace}/chat-engine-0`],
      ['CT002', `cachetenant/${install.workloadNamespace}/team-chat`],
      ['CP002', `namespace/${install.workloadNamespace}`],
    ]);
    expect(report.summary.exitCode).toBe(0);
    expect(code).toBe(0);
  });

  describe('/snapshot authentication (upstream section 9)', () => {
    it('refuses the controller audience for another ServiceAccount with 403 → SN005', async () => {
      const other = await requestToken(kc, INSTALL_NAMESPACE, 'inference-cache-server', [DEFAULT_CONTROLLER_AUDIENCE]);
      const { report } = await run(['--snapshot-token-file', tokenFile('other-sa', other)]);
      expect(serverCodes(report)).toEqual(['SV003', 'SN005', 'PL002', 'PB002']);
      expect(message(report, 'SN005')).toContain('403');
    });
    it('refuses a wrong audience with 401 → SN005', async () => {
      const wrong = await requestToken(kc, INSTALL_NAMESPACE, CONTROLLER_SERVICE_ACCOUNT, ['https://kubernetes.default.svc']);
      const { report } = await run(['--snapshot-token-file', tokenFile('wrong-aud', wrong)]);
      expect(serverCodes(report)).toEqual(['SV003', 'SN005', 'PL002', 'PB002']);
      expect(message(report, 'SN005')).toContain('401');
    });
    it('refuses a request without a token → SN005', async () => {
      const { report } = await run([]);
      expect(serverCodes(report)).toEqual(['SV003', 'SN005', 'PL002', 'PB002']);
      expect(message(report, 'SN005')).toContain('401');
    });
    it('answers 503 when TokenReview is unavailable → SN001', async () => {
      install.server.clearTokenCaches();
      install.server.setFaults({ tokenReview: 'down' });
      try {
        const { report, code } = await run(['--snapshot-token-file', install.tokenFile]);
        expect(serverCodes(report)).toEqual(['SV003', 'SN001', 'PL002', 'PB002']);
        expect(message(report, 'SN001')).toContain('503');
        expect(code).toBe(2);
      } finally {
        install.server.setFaults({});
      }
    });
    it('reviewed every token with the API server', () => {
      const stats = install.server.authStats.snapshot;
      expect(stats.ok).toBeGreaterThan(0);
      expect(stats.unauth).toBeGreaterThan(0);
      expect(stats.forbidden).toBeGreaterThan(0);
      expect(stats.tokenReviews).toBeGreaterThanOrEqual(3);
    });
  });

  describe('a fresh pod that an enforcer admits late (the settle window)', () => {
    /** Both server ports, refused until the proxy listens 2.5 s after the doctor starts, then forwarded. */
    const lateServer = () => {
      const [host = '', port = ''] = install.serverEndpoint.split(':');
      const proxyHost = `127.0.${1 + Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
      const proxy = startLateProxy(
        proxyHost,
        host,
        [
          [Number(port), Number(port)],
          [SNAPSHOT_PORT, SNAPSHOT_PORT],
        ],
        2_500,
      );
      return { proxy, endpoint: `${proxyHost}:${port}` };
    };
    const labelsFile = () => tokenFile('labels', 'app.kubernetes.io/name="inference-cache"\n');
    const SETTLED = /\(connections were refused for (\d+\.\d)s after the doctor's pod started, then accepted\)$/;

    it('in a pod: every server probe waits for its port, passes, and says how long it was refused', async () => {
      const { proxy, endpoint } = lateServer();
      try {
        const { code, report } = await run(
          ['--snapshot-token-file', install.tokenFile, '--server-endpoint', endpoint, '--pod-labels-file', labelsFile()],
          { POD_NAMESPACE: INSTALL_NAMESPACE, POD_NAME: 'doctor-settle' },
        );
        expect(serverCodes(report)).toEqual(['SV003', 'SN004', 'PL002', 'PB002']);
        for (const code of ['SV003', 'SN004', 'PL002', 'PB002']) {
          const seconds = Number(SETTLED.exec(message(report, code))?.[1]);
          expect(seconds, message(report, code)).toBeGreaterThanOrEqual(2.4);
          expect(seconds).toBeLessThan(10);
        }
        expect(code).toBe(0);
      } finally {
        await proxy.close();
      }
    });

    it('outside a pod, nothing waits: the same ports are refused at once, as upstream', async () => {
      const { proxy, endpoint } = lateServer();
      try {
        const { report } = await run(['--snapshot-token-file', install.tokenFile, '--server-endpoint', endpoint]);
        expect(serverCodes(report)).toEqual(['SV001', 'SN001', 'PL001', 'PB001']);
        for (const code of ['SV001', 'SN001', 'PL001', 'PB001']) {
          expect(message(report, code)).toContain('ECONNREFUSED');
          expect(message(report, code)).not.toContain('pod started');
        }
      } finally {
        await proxy.close();
      }
    });
  });

  describe('server faults', () => {
    const withFaults = async (
      faults: Parameters<SampleInstall['server']['setFaults']>[0],
      check: (report: JsonReport, code: number | null) => void,
    ) => {
      install.server.setFaults(faults);
      try {
        const { report, code } = await run(['--snapshot-token-file', install.tokenFile]);
        check(report, code);
      } finally {
        install.server.setFaults({});
      }
    };
    it('NOT_SERVING → SV002', () =>
      withFaults({ health: 'NOT_SERVING' }, (report, code) => {
        expect(serverCodes(report)).toEqual(['SV002', 'SN004', 'PL002', 'PB002']);
        expect(message(report, 'SV002')).toContain('NOT_SERVING');
        expect(code).toBe(2);
      }));
    it('missing /policy and /probe routes → PL001 and PB001', () =>
      withFaults({ policy: { missing: true }, probe: { missing: true } }, (report) => {
        expect(serverCodes(report)).toEqual(['SV003', 'SN004', 'PL001', 'PB001']);
        expect(message(report, 'PL001')).toContain('404');
      }));
    it('a non-JSON /snapshot body → SN002', () =>
      withFaults({ snapshot: { body: 'not-json' } }, (report, code) => {
        expect(serverCodes(report)).toEqual(['SV003', 'SN002', 'PL002', 'PB002']);
        expect(code).toBe(1);
      }));
    it('a /snapshot 500 → SN001', () =>
      withFaults({ snapshot: { status: 500 } }, (report) => {
        expect(serverCodes(report)).toEqual(['SV003', 'SN001', 'PL002', 'PB002']);
        expect(message(report, 'SN001')).toContain('500');
      }));
  });

  it('the doctor sent no create, update, patch or delete', () => {
    const me = new Set([doctor.username]);
    expect(completedRequestsBy(inject('auditLogPath'), me).filter((e) => e.verb === 'list').length).toBeGreaterThanOrEqual(5);
    expect(writesBy(inject('auditLogPath'), me)).toEqual([]);
  });
});
