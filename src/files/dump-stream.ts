/**
 * How `inferencecache dump` writes its stream, in YAML or JSON: a comment with the dump's headline and
 * notes, then one typed list per Kind. The objects are already as the dump writes them
 * (`cluster/kinds/dump-policy.ts`); this only lays them out.
 *
 * @module
 */

import { stringify } from 'yaml';

/** What a dump holds: its headline (`dumpHeadline`), notes for a reader, and its typed lists in order. */
export interface DumpDocument {
  readonly headline: string;
  readonly notes: readonly string[];
  readonly lists: readonly Record<string, unknown>[];
}

/** JSON with the exact big integers of the API kept exact. */
function exactJson(value: unknown): string {
  // JSON.rawJSON (Node 21 and later) writes the digits as they are; the TypeScript library lacks it yet.
  const { rawJSON } = JSON as unknown as { rawJSON: (text: string) => unknown };
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? rawJSON(v.toString()) : v), 2);
}

/** The dump as one JSON `List` of typed lists, the comment in `$comment`. */
export function dumpJson(dump: DumpDocument): string {
  const { headline, notes, lists } = dump;
  return `${exactJson({ $comment: [headline, ...notes].join(' | '), apiVersion: 'v1', kind: 'List', metadata: {}, items: lists })}\n`;
}

/**
 * The dump in YAML: each Kind an empty typed list (the Kind was read) followed by its objects one
 * document each, so that a reader parses one object at a time (see `MAX_YAML_DOCUMENT_CHARS`).
 */
export function dumpYaml(dump: DumpDocument): string {
  const { headline, notes, lists } = dump;
  const comment = [headline, ...notes].map((line) => `# ${line.replace(/[\r\n]+/g, ' ')}\n`).join('');
  const doc = (value: unknown) => `---\n${stringify(value, { lineWidth: 0 })}`;
  const documents = lists.flatMap(({ items, ...list }) => [doc({ ...list, items: [] }), ...(items as unknown[]).map(doc)]);
  return `${comment}${documents.join('')}`;
}
