/**
 * The doctor's JSON report as the tests read it.
 *
 * @module
 */

/** The doctor's JSON report. */
export interface JsonReport {
  summary: {
    ok: number;
    info: number;
    warn: number;
    fail: number;
    exitCode: number;
    incomplete?: string;
    failOn?: string;
    suppressed?: number;
  };
  findings: { code: string; status: string; check: string; resource?: string; message: string; hint?: string; docs?: string }[];
  suppressed?: {
    code: string;
    status: string;
    check: string;
    resource?: string;
    message: string;
    suppressedBy: { source: string; match: string; reason?: string; expires?: string };
  }[];
  attempts?: { attempt: number; elapsed: string; exitCode: number; counted: string[] }[];
}

/** The findings as `[code, resource]` pairs, for compact expectations. */
export function pairs(report: JsonReport, filter: (f: JsonReport['findings'][number]) => boolean = () => true): [string, string][] {
  return report.findings.filter(filter).map((f) => [f.code, f.resource ?? '']);
}
