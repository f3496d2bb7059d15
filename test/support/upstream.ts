/**
 * The upstream reference data beside the project (`../shared/upstream`): CRDs, manifests and golden
 * output layouts that some tests compare the project's own files with. Optional on a workstation (those
 * tests skip and say why), required under CI.
 *
 * @module
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROJECT_ROOT } from '../../dev/paths.ts';

/** Upstream reference data (read-only); INFERENCECACHE_DOCTOR_UPSTREAM_DIR overrides. */
export const UPSTREAM_DIR = path.resolve(PROJECT_ROOT, process.env['INFERENCECACHE_DOCTOR_UPSTREAM_DIR'] || '../shared/upstream');

export interface UpstreamData {
  /** Absolute path of the upstream reference data, or undefined when it is absent. */
  dir: string | undefined;
  /** Why it is unavailable (empty when present). */
  missing: string;
  /** Absent under CI=true: suites must fail rather than skip. */
  mustFail: boolean;
}

/** Whether the upstream reference data is here, and what a test must do when it is not. */
export function upstreamData(): UpstreamData {
  if (fs.existsSync(UPSTREAM_DIR)) return { dir: UPSTREAM_DIR, missing: '', mustFail: false };
  return {
    dir: undefined,
    missing: `upstream reference data not found at ${UPSTREAM_DIR}`,
    mustFail: process.env['CI'] === 'true',
  };
}
