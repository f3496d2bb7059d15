// Validates SARIF the way GitHub recommends: Microsoft's SARIF Multitool `validate` (the npm package
// @microsoft/sarif-multitool, a devDependency), with the SARIF rules and GitHub's ingestion rules. A
// cheaper check for the many runs of the fault suite: the SARIF 2.1.0 JSON Schema the Multitool ships,
// with ajv.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);

/** The folder of the Multitool's platform package (it holds the program and the schema), or undefined. */
function multitoolDir(): string | undefined {
  try {
    return dirname(require.resolve(`@microsoft/sarif-multitool-${process.platform}/package.json`));
  } catch {
    return undefined;
  }
}

/** The Multitool program, or why it cannot run here; under CI it must (`npm ci` installs it). */
export function multitoolMissing(): string {
  const dir = multitoolDir();
  const why =
    dir === undefined || !existsSync(join(dir, 'Sarif.Multitool'))
      ? `@microsoft/sarif-multitool-${process.platform} is not installed (npm ci)`
      : '';
  if (why !== '' && process.env['CI'] === 'true') throw new Error(`the SARIF Multitool must run under CI: ${why}`);
  return why;
}

/**
 * The notes of the Multitool's rules a log of ours may draw, each for a reason: no message templates
 * (SARIF2002: our messages are whole sentences), no version-control provenance (SARIF2003: the doctor
 * does not know the repository), URIs not fetched (SARIF2006: the rule tries the network, which the
 * tests have none of), no snippets or context regions (SARIF2010, SARIF2011: a Kubernetes object's
 * text is the operator's file, not ours to copy).
 */
export const ALLOWED_NOTES = ['SARIF2002', 'SARIF2003', 'SARIF2006', 'SARIF2010', 'SARIF2011'] as const;

/** One complaint of the Multitool. */
export interface Complaint {
  readonly ruleId: string;
  readonly level: string;
  readonly text: string;
}

/**
 * The Multitool's complaints about `sarif` under the SARIF rules and GitHub's (`--rule-kind
 * "Sarif;Gh"`), errors, warnings and notes alike; throws when the Multitool itself fails.
 */
export function multitoolComplaints(sarif: string): Complaint[] {
  const dir = multitoolDir();
  if (dir === undefined) throw new Error('the SARIF Multitool is not installed');
  const work = mkdtempSync(join(tmpdir(), 'icd-sarif-'));
  try {
    const input = join(work, 'report.sarif');
    const output = join(work, 'validation.sarif');
    writeFileSync(input, sarif);
    const args = [
      'validate',
      input,
      '--output',
      output,
      '--log',
      'ForceOverwrite',
      '--rule-kind',
      'Sarif;Gh',
      '--level',
      'Error;Warning;Note',
    ];
    const run = spawnSync(join(dir, 'Sarif.Multitool'), args, {
      encoding: 'utf8',
      timeout: 120_000,
      // The Multitool is a .NET program: no telemetry, no first-run banner, no ICU download.
      env: { PATH: process.env['PATH'] ?? '', HOME: work, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
    });
    if (run.status !== 0 || !existsSync(output))
      throw new Error(`the SARIF Multitool failed (${String(run.status)}): ${run.stdout}${run.stderr}`);
    const log = JSON.parse(readFileSync(output, 'utf8')) as {
      runs: { results?: { ruleId: string; level?: string; message: { text?: string; arguments?: string[] } }[] }[];
    };
    return log.runs.flatMap((r) =>
      (r.results ?? []).map((x) => ({
        ruleId: x.ruleId,
        level: x.level ?? 'warning',
        text: x.message.text ?? (x.message.arguments ?? []).join(' | '),
      })),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

let schemaCheck: ((doc: unknown) => boolean) & { errors?: unknown } = Object.assign(() => false, {});
let compiled = false;

/** The errors of the SARIF 2.1.0 JSON Schema (as the Multitool ships it) for `doc`; empty when it is valid. */
export function sarifSchemaErrors(doc: unknown): string[] {
  if (!compiled) {
    const dir = multitoolDir();
    if (dir === undefined) throw new Error('the SARIF Multitool (and its schema) is not installed');
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    schemaCheck = ajv.compile(JSON.parse(readFileSync(join(dir, 'sarif-2.1.0.json'), 'utf8')) as object);
    compiled = true;
  }
  if (schemaCheck(doc)) return [];
  return ((schemaCheck.errors ?? []) as { instancePath: string; message?: string }[]).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}
