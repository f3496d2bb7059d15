// The human and table renderers as the CLI reaches them, through render(), which escapes the report.
import type { Report } from '../../src/report/finding.ts';
import { render } from '../../src/report/render/index.ts';

/** Human output of `report`. */
export function renderHumanOf(report: Report, opts: { readonly color: boolean }): string {
  return render(report, 'human', opts);
}

/** Table output of `report`. */
export function renderTableOf(report: Report): string {
  return render(report, 'table');
}
