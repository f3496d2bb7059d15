// The documentation describes the code as it is: every path of the repository it names in backquotes,
// and every relative link, leads to something that exists. A file moved or renamed without its docs
// fails here.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../dev/paths.ts';

/** The hand-written Markdown a reader of the repository opens. */
const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'chart/README.md',
  'dev/cluster/README.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The folders of the repository whose paths the docs name in backquotes. */
const ROOTS = /`((?:src|test|dev|scripts|hack|docs|chart|schema)\/[^`\s<>*]+?)`/g;

/** Paths a page names that do not exist, and relative links that lead nowhere, as `page: path` lines. */
function missing(page: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(ROOTS)) {
    const path = (m[1] ?? '').split('#')[0]?.replace(/[/.,:]+$/, '') ?? '';
    if (!existsSync(join(PROJECT_ROOT, path))) out.push(`${page}: ${path}`);
  }
  for (const m of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    const link = m[1] ?? '';
    if (/^[a-z]+:/.test(link)) continue;
    if (!existsSync(join(PROJECT_ROOT, normalize(join(dirname(page), link))))) out.push(`${page}: ${link}`);
  }
  return out;
}

describe('the documentation', () => {
  it('names only paths that exist, and links only to files that exist', () => {
    expect(PAGES.flatMap((page) => missing(page, readFileSync(join(PROJECT_ROOT, page), 'utf8')))).toEqual([]);
  });

  it('the check catches a moved file and a broken link', () => {
    expect(missing('docs/x.md', 'see `src/cluster/api.ts` and [the codes](codes.md), [gone](gone.md), [web](https://example.com)')).toEqual(
      ['docs/x.md: src/cluster/api.ts', 'docs/x.md: gone.md'],
    );
  });
});
