import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { isCodeShaped } from '../report/code-shape.ts';
import { RuleError, expiryOf, globPattern, globProblem, type SuppressionRule } from './rule.ts';

/** The keys a rule of the file may have; any other is refused, so that a misspelt key is not ignored. */
const RULE_KEYS = new Set(['code', 'resource', 'reason', 'expires']);

/**
 * The rules of a `--suppress-file`, in file order:
 *
 * ```yaml
 * suppressions:
 *   - code: CT001                       # required
 *     resource: cachetenant/prod/*      # optional glob; absent: every finding of the code
 *     reason: quota managed by the platform team   # required
 *     expires: 2027-01-31               # optional date or RFC 3339 time
 * ```
 *
 * Each rule is named `<file>:<line>` in the report. `file` is the path as given, for messages only.
 *
 * @throws RuleError naming the file and line of the first rule that cannot be used.
 */
export function parseSuppressFile(text: string, file: string): SuppressionRule[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, schema: 'core' });
  const where = (node: Node | null | undefined) =>
    `${file}:${node?.range === undefined || node.range === null ? 1 : lines.linePos(node.range[0]).line}`;
  if (doc.errors.length > 0) throw new RuleError(`${file}: not valid YAML: ${doc.errors[0]?.message.split('\n')[0] ?? ''}`);
  const root = doc.contents;
  if (root === null && text.trim() === '') return [];
  if (!isMap(root) || root.items.length !== 1 || !isScalar(root.items[0]?.key) || root.items[0].key.value !== 'suppressions') {
    throw new RuleError(`${where(root)}: want a document with one key, suppressions: a list of rules`);
  }
  const list = root.items[0].value;
  if (list === null || (isScalar(list) && list.value === null)) return [];
  if (!isSeq(list)) throw new RuleError(`${where(list)}: suppressions must be a list of rules`);
  return list.items.map((item) => {
    const at = where(item);
    if (!isMap(item)) throw new RuleError(`${at}: a rule is a map with code, reason, and optionally resource and expires`);
    const fields = new Map<string, string>();
    for (const pair of item.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      if (!RULE_KEYS.has(key))
        throw new RuleError(`${at}: unknown key ${JSON.stringify(key)} (a rule has code, resource, reason, expires)`);
      const value: unknown = isScalar(pair.value) ? pair.value.value : undefined;
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw new RuleError(`${at}: ${key} must be a single value`);
      }
      fields.set(key, String(value));
    }
    const code = fields.get('code') ?? '';
    if (!isCodeShaped(code)) throw new RuleError(`${at}: code ${JSON.stringify(code)} is not a finding code such as CB004`);
    const reason = fields.get('reason')?.trim() ?? '';
    if (reason === '') throw new RuleError(`${at}: the rule for ${code} has no reason; say why it is suppressed`);
    const resource = fields.get('resource');
    if (resource === '') throw new RuleError(`${at}: resource is empty; leave it out to match every ${code} finding`);
    const problem = resource === undefined ? undefined : globProblem(resource);
    if (problem !== undefined) throw new RuleError(`${at}: ${problem}`);
    const expires = fields.get('expires');
    let expiresAt: number | undefined;
    try {
      expiresAt = expires === undefined ? undefined : expiryOf(expires);
    } catch (err) {
      throw new RuleError(`${at}: ${(err as Error).message}`);
    }
    return {
      code,
      scope: resource === undefined ? { kind: 'any' } : { kind: 'glob', pattern: globPattern(resource) },
      ref: {
        source: at,
        match: resource === undefined ? code : `${code}=${resource}`,
        reason,
        ...(expires === undefined ? {} : { expires }),
      },
      location: at,
      ...(expiresAt === undefined ? {} : { expiresAt }),
    } satisfies SuppressionRule;
  });
}
