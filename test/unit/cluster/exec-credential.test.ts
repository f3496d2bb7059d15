// Exec credential plugins as the doctor runs them: once per run, under the run's deadline, killed when
// it passes, named in every failure, and never quoted (their output may hold the credentials).
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApi } from '../../../src/cluster/transport/kube-api.ts';
import { HANG_GUARD_MS, expectEndedWellBefore } from '../../support/timing.ts';

const dir = mkdtempSync(join(tmpdir(), 'icd-exec-'));
const SECRET_TOKEN = 'tok-9f8e7d6c5b4a';
let server: Server;
let port = 0;
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"kind":"PodList","metadata":{},"items":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A plugin: a shell script with this body; it counts its runs and notes its pid. */
function plugin(name: string, body: string): { command: string; runs: () => number; pid: () => number } {
  const command = join(dir, name);
  const count = join(dir, `${name}.runs`);
  const pidFile = join(dir, `${name}.pid`);
  writeFileSync(command, `#!/bin/sh\necho x >> '${count}'\necho $$ > '${pidFile}'\n${body}\n`);
  chmodSync(command, 0o755);
  return {
    command,
    runs: () => (existsSync(count) ? readFileSync(count, 'utf8').split('\n').filter(Boolean).length : 0),
    pid: () => Number(readFileSync(pidFile, 'utf8')),
  };
}

function apiWith(command: string, args: string[] = []): KubeApi {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [
      {
        name: 'u',
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command,
          args,
          env: [{ name: 'EXTRA', value: 'yes' }],
          interactiveMode: 'Never',
        },
      },
    ],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new KubeApi(kc, { PATH: process.env['PATH'] });
}

const credential = (status: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status });

describe('an exec credential plugin', () => {
  it('runs once for all of a run’s reads, and its token authenticates them', async () => {
    const p = plugin('good', `[ "$EXTRA" = yes ] || exit 9\ncat <<'EOF'\n${credential({ token: SECRET_TOKEN })}\nEOF`);
    const api = apiWith(p.command);
    seen.length = 0;
    const signal = AbortSignal.timeout(20_000);
    const results = await Promise.all([
      api.get('/api/v1/pods', signal),
      api.get('/api/v1/events', signal),
      api.get('/api/v1/nodes', signal),
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(seen).toEqual([`Bearer ${SECRET_TOKEN}`, `Bearer ${SECRET_TOKEN}`, `Bearer ${SECRET_TOKEN}`]);
    expect(p.runs()).toBe(1);
  });

  it('is told it runs without a terminal (KUBERNETES_EXEC_INFO)', async () => {
    const p = plugin('info', `echo "$KUBERNETES_EXEC_INFO" > '${join(dir, 'info.json')}'\necho '${credential({ token: 't' })}'`);
    await apiWith(p.command).get('/api/v1/pods', AbortSignal.timeout(20_000));
    expect(JSON.parse(readFileSync(join(dir, 'info.json'), 'utf8'))).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
  });

  it('that hangs is killed when the run’s deadline passes, and named', async () => {
    const p = plugin('hangs', 'exec sleep 600');
    const started = Date.now();
    const result = await apiWith(p.command).get('/api/v1/pods', AbortSignal.timeout(1_000));
    expectEndedWellBefore(Date.now() - started, 600_000);
    expect(Date.now() - started).toBeLessThan(1_000 + HANG_GUARD_MS);
    expect(result).toEqual({
      ok: false,
      error: `the credential plugin ${JSON.stringify(p.command)} did not finish before the run ended, and was killed`,
    });
    await expect.poll(() => existsSync(`/proc/${p.pid()}`), { timeout: HANG_GUARD_MS }).toBe(false);
  });

  it('that fails says how, with the first line it wrote to stderr, once per run', async () => {
    const p = plugin('fails', 'echo "login required: run kubelogin" >&2\necho second line >&2\nexit 4');
    const api = apiWith(p.command);
    const signal = AbortSignal.timeout(20_000);
    const first = await api.get('/api/v1/pods', signal);
    const second = await api.get('/api/v1/events', signal);
    expect(first).toEqual({
      ok: false,
      error: `the credential plugin ${JSON.stringify(p.command)} exited with 4: login required: run kubelogin`,
    });
    expect(second).toEqual(first);
    expect(p.runs()).toBe(1);
  });

  it.each([
    ['garbage', `echo 'Bearer ${SECRET_TOKEN} is what you need'`, 'printed something that is not an ExecCredential (not JSON)'],
    [
      'no token',
      `echo '${credential({ expirationTimestamp: '2099-01-01T00:00:00Z' })}'`,
      'printed an ExecCredential with neither status.token nor a client certificate and key',
    ],
    [
      'a certificate without its key',
      `echo '${credential({ clientCertificateData: 'x' })}'`,
      'printed an ExecCredential with neither status.token nor a client certificate and key',
    ],
  ])('that prints %s says so without repeating what it printed', async (name, body, why) => {
    const p = plugin(name.replaceAll(' ', '-'), body);
    const result = await apiWith(p.command).get('/api/v1/pods', AbortSignal.timeout(20_000));
    expect(result).toEqual({ ok: false, error: `the credential plugin ${JSON.stringify(p.command)} ${why}` });
    expect(JSON.stringify(result)).not.toContain(SECRET_TOKEN);
  });

  it('that does not exist says it could not be started', async () => {
    const result = await apiWith(join(dir, 'no-such-plugin')).get('/api/v1/pods', AbortSignal.timeout(20_000));
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.error).toMatch(/^the credential plugin ".*no-such-plugin" could not be started: .*ENOENT/);
  });

  it('that prints without end is stopped', async () => {
    const p = plugin('floods', 'exec yes');
    const result = await apiWith(p.command).get('/api/v1/pods', AbortSignal.timeout(20_000));
    expect(result).toEqual({
      ok: false,
      error: `the credential plugin ${JSON.stringify(p.command)} printed more than 1048576 bytes and was killed`,
    });
  });

  it('runs again once its credential expired', async () => {
    const p = plugin('expires', `echo '${credential({ token: 'short', expirationTimestamp: '2000-01-01T00:00:00Z' })}'`);
    const api = apiWith(p.command);
    const signal = AbortSignal.timeout(20_000);
    await api.get('/api/v1/pods', signal);
    await api.get('/api/v1/pods', signal);
    expect(p.runs()).toBe(2);
  });
});
