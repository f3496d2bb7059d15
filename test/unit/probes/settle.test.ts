// The admission gate of a fresh pod against real loopback sockets: a port that refuses and then
// listens, one that refuses throughout, one whose handshakes go unanswered, and the failures it must
// not wait for. Bounds are seconds wide: only a hang or a missing wait can break them.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionGate, CONNECT_TRY_MS, settleWindowFrom, type SettleWindow } from '../../../src/probes/settle.ts';
import { getClosedPort, startBlackhole, startStalledListener, type Blackhole } from '../../support/servers/blackhole.ts';
import { expectEndedOnBudget, expectEndedWellBefore } from '../../support/timing.ts';

const clock = () => new Date();
const HOST = '127.0.0.1';

/** A window whose pod started `startedAgoMs` ago and that ends `endsInMs` from now. */
function windowOf(endsInMs: number, startedAgoMs = 0): SettleWindow {
  const now = Date.now();
  return { podStartedMs: now - startedAgoMs, endsMs: now + endsInMs };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

describe('settleWindowFrom', () => {
  it('counts the window from the start it is given', () => {
    const window = settleWindowFrom(new Date(1_000));
    expect(window.podStartedMs).toBe(1_000);
    expect(window.endsMs).toBeGreaterThan(1_000);
    expect(window.endsMs - window.podStartedMs).toBeLessThanOrEqual(15_000);
  });
});

describe('admissionGate', () => {
  let open: Blackhole;
  beforeAll(async () => {
    open = await startBlackhole();
  });
  afterAll(async () => {
    await open.close();
  });

  it('a port that accepts at once: nothing to say, one connection', async () => {
    const before = open.accepted();
    expect(await admissionGate(windowOf(10_000), clock, AbortSignal.timeout(30_000))(HOST, open.port)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    expect(open.accepted()).toBe(before + 1);
  });

  it('a port that refuses until it listens 2 s later: accepted, after refusals counted from the pod start', async () => {
    const port = await getClosedPort();
    const late = createServer((s) => s.destroy());
    const opened = new Promise<void>((resolve) => setTimeout(() => late.listen(port, HOST, resolve), 2_000));
    try {
      const { value } = await timed(() => admissionGate(windowOf(12_000, 1_000), clock, AbortSignal.timeout(30_000))(HOST, port));
      expect(value).toMatchObject({ failure: 'refused', accepted: true });
      expect(value?.tries).toBeGreaterThanOrEqual(2);
      expect(value?.afterPodStartMs).toBeGreaterThanOrEqual(2_950);
      expect(value?.afterPodStartMs).toBeLessThan(13_000);
    } finally {
      await opened;
      await new Promise<void>((resolve) => late.close(() => resolve()));
    }
  });

  it('a port that refuses throughout: tried until the window ends, none accepted', async () => {
    const port = await getClosedPort();
    const { value, ms } = await timed(() => admissionGate(windowOf(2_000), clock, AbortSignal.timeout(30_000))(HOST, port));
    expect(value).toMatchObject({ failure: 'refused', accepted: false });
    expect(value?.tries).toBeGreaterThanOrEqual(3);
    expectEndedOnBudget(ms, 2_000);
  });

  it.skipIf(process.platform === 'win32')(
    'a port whose handshakes go unanswered: each try ends after its own time, none accepted',
    async () => {
      const stalled = await startStalledListener();
      try {
        const port = Number(stalled.address.split(':').at(-1));
        const { value, ms } = await timed(() => admissionGate(windowOf(2_500), clock, AbortSignal.timeout(30_000))(HOST, port));
        // Two whole tries (1 s each, 0.1 and 0.2 s apart); the third, cut short by the window's end, is none.
        expect(value).toMatchObject({ failure: 'unanswered', accepted: false, tries: 2 });
        expectEndedOnBudget(ms, 2_500);
        expect(CONNECT_TRY_MS).toBeLessThan(2_500);
      } finally {
        await stalled.close();
      }
    },
  );

  it('a window already over: no connection is tried', async () => {
    const before = open.accepted();
    expect(await admissionGate(windowOf(-1), clock, AbortSignal.timeout(30_000))(HOST, open.port)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    expect(open.accepted()).toBe(before);
  });

  it('a failure an enforcer does not cause (an unknown name) is not waited for', async () => {
    const { value, ms } = await timed(() =>
      admissionGate(windowOf(10_000), clock, AbortSignal.timeout(30_000))('nonexistent.invalid', 6379),
    );
    expect(value).toBeUndefined();
    expectEndedWellBefore(ms, 10_000);
  });

  it('the run ending (interrupt or --timeout) ends the wait at once', async () => {
    const port = await getClosedPort();
    const { value, ms } = await timed(() => admissionGate(windowOf(10_000), clock, AbortSignal.timeout(1_000))(HOST, port));
    expect(value).toMatchObject({ failure: 'refused', accepted: false });
    expectEndedWellBefore(ms, 10_000);
  });
});
