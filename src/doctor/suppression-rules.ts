/**
 * The suppression rules an operator writes: `--suppress` flags and the `--suppress-file`, loaded once
 * when the run starts, every code checked against the code table.
 *
 * @module
 */

import type { DoctorOptions } from '../cli/options.ts';
import { UsageError } from '../cli/options.ts';
import { readOperatorFile } from '../files/operator-file.ts';
import { parseSuppressFile } from '../suppress/file.ts';
import { RuleError, type SuppressionRule } from '../suppress/rule.ts';

/**
 * The rules of `--suppress` and `--suppress-file`, in that order.
 *
 * @throws UsageError for a file that cannot be read or parsed, or a rule naming no known code.
 */
export async function writtenRules(
  options: DoctorOptions,
  known: ReadonlyMap<string, unknown>,
  signal?: AbortSignal,
): Promise<SuppressionRule[]> {
  let fromFile: SuppressionRule[] = [];
  if (options.suppressFile !== undefined) {
    const read = await readOperatorFile(options.suppressFile, 'suppress-file', signal);
    if (!read.ok) throw new UsageError(`cannot read --suppress-file ${JSON.stringify(options.suppressFile)} (${read.reason})`);
    const text = read.bytes.toString('utf8');
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
