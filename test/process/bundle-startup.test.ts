// What the bundle compiles before it answers: `--version`, `--help` and `codes` must not pay for the
// Kubernetes, gRPC or HTTP clients, and a run that does not probe the server never loads gRPC. Node's
// ESM loader reads each of the bundle's chunks only when it is first imported; a preload records which
// ones it reads. Startup time itself is a benchmark figure (`npm run bench`), not asserted here.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../../dev/process.ts';
import { requireBundle } from '../../dev/bundle.ts';
import { runBundle, writeKubeconfig } from '../support/bundle.ts';

const TRACE = resolve(import.meta.dirname, '../support/chunk-trace.cjs');

/**
 * The most source `--version` and `--help` may compile: about 1.1 times what they compile now (67.7 KB:
 * the entry, the command line with its flag declarations and help, `dump`'s and `monitor`'s among them, the
 * version, the error texts, the RFC 3339 reader of `--now` and of suppression expiries), so that a new
 * static import of the checks or a client is noticed before it is felt.
 */
const STARTUP_SOURCE_BOUND = 74_000;

interface LoadedChunk {
  readonly name: string;
  readonly bytes: number;
  readonly modules: readonly string[];
}

let dir = '';
let unreachable = '';
beforeAll(async () => {
  requireBundle();
  dir = mkdtempSync(join(tmpdir(), 'icd-chunks-'));
  unreachable = writeKubeconfig(`https://127.0.0.1:${await closedPort()}`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the bundle with the trace preloaded and returns its exit code and the files of it that it compiled. */
async function traced(args: readonly string[]): Promise<{ code: number | null; chunks: LoadedChunk[] }> {
  const file = join(dir, `${args.join('_').replace(/\W/g, '')}.json`);
  const run = await runBundle(args, {
    command: [process.execPath, '--require', TRACE, requireBundle()],
    env: { PATH: process.env['PATH'] ?? '', CHUNK_TRACE_FILE: file },
  });
  return { code: run.code, chunks: JSON.parse(readFileSync(file, 'utf8')) as LoadedChunk[] };
}

const packagesIn = (chunks: readonly LoadedChunk[]): Set<string> =>
  new Set(chunks.flatMap((c) => c.modules.flatMap((m) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(m)?.[1] ?? [])));

describe('commands that need no cluster compile only our own small part of the bundle', () => {
  for (const args of [['--version'], ['--help']]) {
    it(args.join(' '), async () => {
      const { code, chunks } = await traced(args);
      expect(code).toBe(0);
      expect(chunks.map((c) => c.name)).toContain('inferencecache.mjs');
      expect(chunks.every((c) => c.name === 'inferencecache.mjs' || c.name.startsWith('chunks/'))).toBe(true);
      expect([...packagesIn(chunks)]).toEqual([]);
      const modules = chunks.flatMap((c) => c.modules);
      expect(modules).toContain('src/cli/parse.ts');
      for (const heavy of ['src/checks/registry.ts', 'src/doctor/pipeline.ts', 'src/report/render/human.ts'])
        expect(modules).not.toContain(heavy);
      expect(chunks.reduce((sum, c) => sum + c.bytes, 0)).toBeLessThan(STARTUP_SOURCE_BOUND);
    });
  }

  it('codes loads the checks for their declarations, and no client', async () => {
    const { code, chunks } = await traced(['codes']);
    expect(code).toBe(0);
    expect([...packagesIn(chunks)]).toEqual([]);
    const modules = chunks.flatMap((c) => c.modules);
    expect(modules).toContain('src/checks/registry.ts');
    expect(modules).not.toContain('src/doctor/pipeline.ts');
    expect(modules).not.toContain('src/cluster/transport/kube-api.ts');
  });
});

describe('a doctor run loads what it uses', () => {
  it('--config-only reads the cluster without ever loading the gRPC client', async () => {
    const { code, chunks } = await traced(['doctor', '--config-only', '--kubeconfig', unreachable, '--timeout', '5s', '-o', 'json']);
    expect(code).toBe(2);
    const modules = chunks.flatMap((c) => c.modules);
    expect(modules).toContain('src/doctor/pipeline.ts');
    expect(modules).toContain('src/cluster/transport/kube-api.ts');
    expect(packagesIn(chunks).has('@grpc/grpc-js')).toBe(false);
    expect(modules).not.toContain('src/probes/grpc-health.ts');
  });
});
