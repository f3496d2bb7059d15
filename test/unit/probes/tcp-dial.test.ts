import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialAddress, dialTcp } from '../../../src/probes/tcp-dial.ts';
import { getClosedPort, startBlackhole, startStalledListener, type Blackhole } from '../../support/servers/blackhole.ts';
import { expectEndedOnBudget, expectEndedWellBefore } from '../../support/timing.ts';

const DEADLINE = 2_000;

function failure(result: { ok: boolean; error?: string }): string {
  expect(result.ok).toBe(false);
  return result.error ?? '';
}

async function listenOn(host: string): Promise<{ server: Server; port: number } | undefined> {
  const server = createServer((s) => s.destroy());
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(0, host, () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr !== null ? { server, port: addr.port } : undefined);
    });
  });
}

describe('dialAddress', () => {
  it.each([
    ['http://h:1', 'h:1'],
    ['https://h:1', 'h:1'],
    ['http://https://h:1', 'https://h:1'],
    ['HTTP://h:1', 'HTTP://h:1'],
    ['redis://h:6379', 'redis://h:6379'],
    ['h:1', 'h:1'],
  ])('%s → %s', (endpoint, address) => {
    expect(dialAddress(endpoint)).toBe(address);
  });
});

describe('dialTcp', () => {
  let open: Blackhole;
  beforeAll(async () => {
    open = await startBlackhole();
  });
  afterAll(async () => {
    await open.close();
  });

  it('an open port → ok (a listener that never speaks does not matter)', async () => {
    const before = open.accepted();
    expect(await dialTcp(open.address, { deadlineMs: DEADLINE })).toEqual({ ok: true });
    expect(open.accepted()).toBe(before + 1);
  });

  it.each(['http://', 'https://'])('strips a leading %s', async (scheme) => {
    expect(await dialTcp(`${scheme}${open.address}`, { deadlineMs: DEADLINE })).toEqual({ ok: true });
  });

  it('a closed port → error naming the address', async () => {
    const port = await getClosedPort();
    const error = failure(await dialTcp(`127.0.0.1:${port}`, { deadlineMs: DEADLINE }));
    expect(error).toContain(`127.0.0.1:${port}`);
    expect(error).toContain('ECONNREFUSED');
    expect(error).not.toMatch(/\n/);
  });

  it('redis://host:port is not stripped and fails on its colons', async () => {
    expect(failure(await dialTcp('redis://h:6379', { deadlineMs: DEADLINE }))).toMatch(/too many colons/);
  });

  it.each(['cache.example', 'cache.example:', 'cache.example:http', 'cache.example:70000', '[::1]', '::1:6379'])(
    '%j fails without dialling',
    async (endpoint) => {
      const started = performance.now();
      failure(await dialTcp(endpoint, { deadlineMs: 10_000 }));
      expectEndedWellBefore(performance.now() - started, 10_000);
    },
  );

  it('a bracketed IPv6 loopback [::1]:port', async (ctx) => {
    const v6 = await listenOn('::1');
    if (v6 === undefined) {
      ctx.skip('no IPv6 loopback on this machine');
      return;
    }
    try {
      expect(await dialTcp(`[::1]:${v6.port}`, { deadlineMs: DEADLINE })).toEqual({ ok: true });
      expect(await dialTcp(`http://[::1]:${v6.port}`, { deadlineMs: DEADLINE })).toEqual({ ok: true });
    } finally {
      v6.server.close();
    }
  });

  it('an unknown host → error', async () => {
    expect(failure(await dialTcp('nonexistent.invalid:6379', { deadlineMs: DEADLINE }))).toMatch(/ENOTFOUND|EAI_AGAIN|no answer/);
  });

  it.skipIf(process.platform === 'win32')('a handshake that never completes ends within the deadline', async () => {
    const stalled = await startStalledListener();
    try {
      const started = performance.now();
      const result = await dialTcp(stalled.address, { deadlineMs: 300 });
      expect(result).toEqual({ ok: false, error: `dial tcp ${stalled.address}: no answer within 300ms` });
      expectEndedOnBudget(performance.now() - started, 300);
    } finally {
      await stalled.close();
    }
  });

  it.skipIf(process.platform === 'win32')('the overall signal ends a hanging dial early', async () => {
    const stalled = await startStalledListener();
    try {
      const started = performance.now();
      const result = await dialTcp(stalled.address, { deadlineMs: 10_000, signal: AbortSignal.timeout(150) });
      expectEndedWellBefore(performance.now() - started, 10_000);
      expect(failure(result)).toContain('overall deadline');
    } finally {
      await stalled.close();
    }
  });

  it('an already aborted signal dials nothing', async () => {
    const before = open.accepted();
    failure(await dialTcp(open.address, { deadlineMs: DEADLINE, signal: AbortSignal.abort() }));
    await new Promise((r) => setTimeout(r, 50));
    expect(open.accepted()).toBe(before);
  });
});
