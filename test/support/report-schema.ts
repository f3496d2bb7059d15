// The JSON Schema of the report (schema/report.schema.json), applied with Ajv, a real draft 2020-12
// validator: every JSON report a test gets from the doctor is checked against it where it is read.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** schema/report.schema.json, as committed. */
export const REPORT_SCHEMA_FILE = new URL('../../schema/report.schema.json', import.meta.url);

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
const validate = ajv.compile(JSON.parse(readFileSync(REPORT_SCHEMA_FILE, 'utf8')) as object);

/** The schema's complaints about `report` ('' when it is valid). */
export function reportSchemaErrors(report: unknown): string {
  if (validate(report)) return '';
  return ajv.errorsText(validate.errors, { separator: '\n' });
}

/** Throws, with the schema's complaints, when `report` does not satisfy the report schema. */
export function assertReportSchema(report: unknown, what = 'the JSON report'): void {
  const errors = reportSchemaErrors(report);
  if (errors !== '') throw new Error(`${what} does not satisfy schema/report.schema.json:\n${errors}`);
}

/** Whether `args` ask the doctor for a JSON report (`doctor … -o json`, `-ojson`, `--output=json`). */
export function asksForJson(args: readonly string[]): boolean {
  if (args[0] !== 'doctor') return false;
  let json = false;
  for (const [i, arg] of args.entries()) {
    if (arg === '-o' || arg === '--output') json = args[i + 1] === 'json';
    else if (arg === '-ojson' || arg === '--output=json') json = true;
    else if (arg.startsWith('-o') && arg.length > 2 && !arg.startsWith('--')) json = false;
    else if (arg.startsWith('--output=')) json = false;
  }
  return json;
}

/** Parses a JSON report and checks it against the schema. */
export function parseReport(text: string): unknown {
  const report: unknown = JSON.parse(text);
  assertReportSchema(report);
  return report;
}
