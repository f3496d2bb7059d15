// The report's writers as the doctor command reaches them (report/output-formats.ts, each format's
// `doctor` writer), loaded once so that tests can render synchronously.
import type { Report } from '../../src/report/finding.ts';
import { formatsOf, writerOf, type FormatOf, type RenderOptions, type Writers } from '../../src/report/output-formats.ts';

/** The formats of the doctor's report. */
export const REPORT_FORMATS = formatsOf('doctor');

const WRITERS = new Map<FormatOf<'doctor'>, Writers['doctor']>(
  await Promise.all(REPORT_FORMATS.map(async (format) => [format, await writerOf('doctor', format)] as const)),
);

/** `report` written in `format` as one string, as `doctor -o <format>` writes it. */
export function render(report: Report, format: FormatOf<'doctor'>, opts: RenderOptions = {}): string {
  const write = WRITERS.get(format);
  if (write === undefined) throw new Error(`no writer for ${format}`);
  return [...write(report, opts)].join('');
}

/** Human output of `report`. */
export function renderHumanOf(report: Report, opts: { readonly color: boolean }): string {
  return render(report, 'human', opts);
}

/** Table output of `report`. */
export function renderTableOf(report: Report): string {
  return render(report, 'table');
}
