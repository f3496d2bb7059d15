import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkGrpcHealth,
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  encodeHealthCheckResponse,
  grpcCodeName,
} from '../../../src/probes/grpc-health.ts';
import { getClosedPort, startBlackhole, type Blackhole } from '../../support/servers/blackhole.ts';
import { expectEndedByBudget, expectEndedOnBudget, expectEndedWellBefore } from '../../support/timing.ts';
import { startGrpcHealthServer, type TestGrpcHealthServer } from '../../support/servers/grpc-health-server.ts';
import { startHttpServer } from '../../support/servers/http-server.ts';

const DEADLINE = 2_000;

describe('health message codec', () => {
  it('encodes the empty service as zero bytes and a named one as field 1', () => {
    expect(encodeHealthCheckRequest('')).toHaveLength(0);
    expect([...encodeHealthCheckRequest('ab')]).toEqual([0x0a, 2, 0x61, 0x62]);
  });

  it('decodes every status, the empty message, unknown fields and the last occurrence', () => {
    expect(decodeHealthCheckResponse(new Uint8Array())).toBe(0);
    for (const v of [0, 1, 2, 3, 300]) expect(decodeHealthCheckResponse(encodeHealthCheckResponse(v))).toBe(v);
    // field 2 (string "x"), field 1 = 2, field 3 fixed32, field 1 = 1
    const bytes = Uint8Array.from([0x12, 1, 0x78, 0x08, 2, 0x1d, 0, 0, 0, 0, 0x08, 1]);
    expect(decodeHealthCheckResponse(bytes)).toBe(1);
  });

  it('rejects malformed input', () => {
    expect(() => decodeHealthCheckResponse(Uint8Array.from([0x08]))).toThrow();
    expect(() => decodeHealthCheckResponse(Uint8Array.from([0x12, 5, 0x78]))).toThrow();
    expect(() => decodeHealthCheckResponse(Uint8Array.from([0x0b]))).toThrow();
  });

  it('names codes the way Go prints them', () => {
    expect(grpcCodeName(status.UNAVAILABLE)).toBe('Unavailable');
    expect(grpcCodeName(status.DEADLINE_EXCEEDED)).toBe('DeadlineExceeded');
    expect(grpcCodeName(status.CANCELLED)).toBe('Canceled');
    expect(grpcCodeName(99)).toBe('Code(99)');
  });
});

describe('checkGrpcHealth against a live server', () => {
  let server: TestGrpcHealthServer;
  beforeAll(async () => {
    server = await startGrpcHealthServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(['SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN', 'UNKNOWN'] as const)('reports %s', async (mode) => {
    server.setMode(mode);
    const result = await checkGrpcHealth(server.target, { deadlineMs: DEADLINE });
    expect(result).toEqual({ kind: 'status', status: mode });
  });

  it('asks about the service ""', async () => {
    server.setMode('SERVING');
    const before = server.services.length;
    await checkGrpcHealth(server.target, { deadlineMs: DEADLINE });
    expect(server.services.slice(before)).toEqual(['']);
  });

  it('counts a status outside the enum as UNKNOWN (not SERVING)', async () => {
    server.setMode({ raw: encodeHealthCheckResponse(7) });
    expect(await checkGrpcHealth(server.target, { deadlineMs: DEADLINE })).toEqual({ kind: 'status', status: 'UNKNOWN' });
  });

  it('turns an undecodable answer into an error', async () => {
    server.setMode({ raw: Uint8Array.from([0x08]) });
    const result = await checkGrpcHealth(server.target, { deadlineMs: DEADLINE });
    expect(result.kind).toBe('error');
    if (result.kind === 'error') expect(result.error).toMatch(/^rpc error: code = \w+ desc = /);
  });

  it('reports Unimplemented when no health service is registered', async () => {
    server.setMode('unimplemented');
    const result = await checkGrpcHealth(server.target, { deadlineMs: DEADLINE });
    expect(result.kind).toBe('error');
    if (result.kind === 'error') expect(result.error).toMatch(/^rpc error: code = Unimplemented desc = /);
  });

  it('reports a server-side status by its Go name', async () => {
    server.setMode({ error: status.NOT_FOUND, details: 'no such thing' });
    expect(await checkGrpcHealth(server.target, { deadlineMs: DEADLINE })).toEqual({
      kind: 'error',
      error: 'rpc error: code = NotFound desc = no such thing',
    });
  });

  it('ends a call the server never answers at the deadline with DeadlineExceeded', async () => {
    server.setMode('hang');
    const started = performance.now();
    const result = await checkGrpcHealth(server.target, { deadlineMs: 300 });
    const elapsed = performance.now() - started;
    expect(result.kind).toBe('error');
    if (result.kind === 'error') expect(result.error).toMatch(/^rpc error: code = DeadlineExceeded desc = /);
    expectEndedOnBudget(elapsed, 300);
  });

  it('is cancelled by the overall signal before its own deadline', async () => {
    server.setMode('hang');
    const overall = new AbortController();
    setTimeout(() => overall.abort(), 100);
    const started = performance.now();
    const result = await checkGrpcHealth(server.target, { deadlineMs: 5_000, signal: overall.signal });
    expectEndedWellBefore(performance.now() - started, 5_000);
    expect(result).toEqual({ kind: 'error', error: 'rpc error: code = Canceled desc = cancelled before an answer' });
  });

  it('says the run deadline passed when the overall signal timed out', async () => {
    server.setMode('hang');
    const result = await checkGrpcHealth(server.target, { deadlineMs: 5_000, signal: AbortSignal.timeout(100) });
    expect(result.kind === 'error' && result.error).toMatch(/^rpc error: code = Canceled desc = the overall deadline/);
  });

  it('does not start when the overall signal is already aborted', async () => {
    server.setMode('SERVING');
    const before = server.services.length;
    const result = await checkGrpcHealth(server.target, { deadlineMs: DEADLINE, signal: AbortSignal.abort() });
    expect(result.kind).toBe('error');
    expect(server.services.length).toBe(before);
  });
});

describe('checkGrpcHealth against broken targets', () => {
  it('reports Unavailable for a refused connection', async () => {
    const port = await getClosedPort();
    const result = await checkGrpcHealth(`127.0.0.1:${port}`, { deadlineMs: DEADLINE });
    expect(result.kind).toBe('error');
    if (result.kind === 'error') {
      expect(result.error).toMatch(/^rpc error: code = Unavailable desc = /);
      expect(result.error).toContain('ECONNREFUSED');
      expect(result.error).not.toMatch(/\n/);
    }
  });

  it('ends within its deadline against a black hole (accepts TCP, never speaks HTTP/2)', async () => {
    const hole: Blackhole = await startBlackhole();
    try {
      for (const deadlineMs of [300, 1_000]) {
        const started = performance.now();
        const result = await checkGrpcHealth(hole.address, { deadlineMs });
        const elapsed = performance.now() - started;
        expect(result.kind).toBe('error');
        if (result.kind === 'error') expect(result.error).toMatch(/^rpc error: code = DeadlineExceeded desc = /);
        expectEndedOnBudget(elapsed, deadlineMs);
      }
      expect(hole.accepted()).toBeGreaterThan(0);
    } finally {
      await hole.close();
    }
  });

  it('fails against a plain HTTP/1.1 listener (e.g. :8081 given as the gRPC port)', async () => {
    const http = await startHttpServer();
    try {
      const started = performance.now();
      const result = await checkGrpcHealth(`127.0.0.1:${http.port}`, { deadlineMs: 1_000 });
      expect(result.kind).toBe('error');
      expectEndedByBudget(performance.now() - started, 1_000);
    } finally {
      await http.close();
    }
  });

  it.each(['', '[[::1]]:9090', '[http://x:1]:9090', 'host:'])('returns an error result for the unusable target %j', async (target) => {
    const started = performance.now();
    const result = await checkGrpcHealth(target, { deadlineMs: 1_000 });
    expect(result.kind).toBe('error');
    if (result.kind === 'error') expect(result.error).not.toMatch(/\n/);
    expectEndedByBudget(performance.now() - started, 1_000);
  });

  it('treats an empty host as this machine', async () => {
    const server = await startGrpcHealthServer('SERVING');
    try {
      // localhost may resolve to ::1 first; grpc-js then falls back to 127.0.0.1.
      expect(await checkGrpcHealth(`:${server.port}`, { deadlineMs: DEADLINE })).toEqual({ kind: 'status', status: 'SERVING' });
    } finally {
      await server.close();
    }
  });
});
