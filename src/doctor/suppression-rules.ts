/**
 * The suppression rules an operator writes: `--suppress` flags and the `--suppress-file`, loaded once
 * when the run starts, every code checked against the code table.
 *
 * @module
 */

import { readFile } from 'node:fs/promises';
import type { DoctorOptions } from '../cli/options.ts';
import { UsageError } from '../cli/options.ts';
import { parseSuppressFile } from '../suppress/file.ts';
import { RuleError, type SuppressionRule } from '../suppress/rule.ts';
import { fileErrorReason } from '../text/errors.ts';

/**
 * The rules of `--suppress` and `--suppress-file`, in that order.
 *
 * @throws UsageError for a file that cannot be read or parsed, or a rule naming no known code.
 */
export async function writtenRules(options: DoctorOptions, known: ReadonlyMap<string, unknown>): Promise<SuppressionRule[]> {
  let fromFile: SuppressionRule[] = [];
  if (options.suppressFile !== undefined) {
    let text: string;
    try {
      text = await readFile(options.suppressFile, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --suppress-file ${JSON.stringify(options.suppressFile)} (${fileErrorReason(err)})`);
    }
    try {
      fromFile = parseSuppressFile(text, options.suppressFile);
    } catch (err) {
      throw err instanceof RuleError ? new UsageError(`invalid --suppress-file: ${err.message}`) : err;
    }
  }
  const rules = [...options.suppress, ...fromFile];
  for (const rule of rules) {
    if (!known.has(rule.code)) {
      const where = rule.ref.source === '--suppress' ? `--suppress ${rule.ref.match}` : rule.ref.source;
      throw new UsageError(`${where}: unknown code ${rule.code} ('inferencecache codes' lists them)`);
    }
  }
  return rules;
}
