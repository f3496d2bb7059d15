/**
 * `inferencecache explain CODE`: one code of the code table, written out. It reads nothing but the
 * declarations inside the binary, which is the point: an operator of an air-gapped cluster gets the
 * same text docs/codes.md holds, with no network and no cluster.
 *
 * @module
 */

import { DEFAULT_DOCS_BASE, codeGuides, codeTable } from '../checks/codes.ts';
import { UsageError, type ExplainOptions } from '../cli/options.ts';
import { lookupCode } from '../report/code-lookup.ts';
import { writerOf } from '../report/output-formats.ts';
import { VERSION } from '../version.ts';

/**
 * The text `explain` prints for `options`.
 *
 * @throws UsageError for a code the code table does not hold, naming the closest ones.
 */
export async function explainCode(options: ExplainOptions): Promise<string> {
  const rows = codeTable();
  const found = lookupCode(rows, options.code, VERSION);
  if (!found.ok) throw new UsageError(found.error);
  const { row } = found;
  // The link is the one a finding of the code carries in a report made with the same --docs-base.
  const docs = codeGuides(options.docsBase ?? DEFAULT_DOCS_BASE, [row]).get(row.code)?.docs ?? '';
  const write = await writerOf('explain', options.output);
  return write({ ...row, docs });
}
