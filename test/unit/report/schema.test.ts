/**
 * schema/report.schema.json: a valid draft 2020-12 schema that every golden JSON report satisfies,
 * that refuses what the report never holds (so the checks that use it can fail), and that
 * `inferencecache schema` prints.
 */
import { collectingIO } from '../../support/app-io.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/cli/parse.ts';
import { REPORT_SCHEMA_FILE, reportSchemaErrors } from '../../support/report-schema.ts';

const GOLDEN = new URL('../../golden/', import.meta.url);
const goldenReports = readdirSync(GOLDEN).filter((f) => f.endsWith('.json'));

const valid = {
  summary: { ok: 1, info: 0, warn: 1, fail: 0, exitCode: 1 },
  findings: [
    {
      code: 'CB001',
      status: 'WARN',
      check: 'CacheBackendHealth',
      resource: 'cachebackend/a/b',
      message: 'm',
      hint: 'h',
      docs: 'https://d.example/codes.md#cb001',
    },
    { code: 'CB006', status: 'OK', check: 'CacheBackendHealth', message: 'fine' },
  ],
};

describe('the report schema', () => {
  it('is a draft 2020-12 schema with an id', () => {
    const schema = JSON.parse(readFileSync(REPORT_SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['$id']).toMatch(/schema\/report\.schema\.json$/);
  });

  it.each(goldenReports)('test/golden/%s satisfies it', (file) => {
    expect(reportSchemaErrors(JSON.parse(readFileSync(new URL(file, GOLDEN), 'utf8')))).toBe('');
  });

  it('takes a plain report', () => {
    expect(reportSchemaErrors(valid)).toBe('');
  });

  const [warn, ok] = valid.findings;
  it.each([
    ['no summary', { findings: [] }, /must have required property 'summary'/],
    ['a key it does not define', { ...valid, extra: 1 }, /must NOT have additional properties/],
    ['an unknown status', { ...valid, findings: [{ ...ok, status: 'ERROR' }] }, /must be equal to one of the allowed values/],
    ['a malformed code', { ...valid, findings: [{ ...ok, code: 'cb6' }] }, /must match pattern/],
    ['an empty resource', { ...valid, findings: [{ ...ok, resource: '' }] }, /must NOT have fewer than 1 characters/],
    ['a hint on an OK finding', { ...valid, findings: [{ ...ok, hint: 'h', docs: 'https://d.example/x' }] }, /boolean schema is false/],
    [
      'a hint without docs',
      { ...valid, findings: [{ ...warn, docs: undefined }] },
      /must have property docs when property hint is present/,
    ],
    [
      'an incomplete run that does not exit 4',
      { ...valid, summary: { ...valid.summary, incomplete: 'interrupted' } },
      /must be equal to constant/,
    ],
    ['exit 4 for a finished run', { ...valid, summary: { ...valid.summary, exitCode: 4 } }, /must be equal to one of the allowed values/],
    ['failOn WARN, which the report leaves out', { ...valid, summary: { ...valid.summary, failOn: 'WARN' } }, /allowed values/],
    ['an empty suppressed list', { ...valid, suppressed: [] }, /must NOT have fewer than 1 items/],
    ['a suppressed finding without its rule', { ...valid, suppressed: [ok] }, /must have required property 'suppressedBy'/],
    [
      'an attempt with a bad duration',
      { ...valid, attempts: [{ attempt: 1, elapsed: '1.5', exitCode: 0, counted: [] }] },
      /must match pattern/,
    ],
  ])('refuses %s', (_, report, error) => {
    expect(reportSchemaErrors(JSON.parse(JSON.stringify(report)))).toMatch(error);
  });

  it('is what `inferencecache schema` prints (the command takes no arguments)', async () => {
    expect(parseCommandLine(['schema'])).toEqual({ kind: 'schema' });
    expect(() => parseCommandLine(['schema', 'x'])).toThrow(/schema takes no arguments/);
    const { runApp } = await import('../../../src/app.ts');
    const { io, stdout } = collectingIO(['schema']);
    const code = await runApp(io);
    const out = stdout();
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(JSON.parse(readFileSync(REPORT_SCHEMA_FILE, 'utf8')));
  });
});
