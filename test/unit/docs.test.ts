// The documentation describes the code as it is: every path of the repository it names in backquotes,
// and every relative link, leads to something that exists. A file moved or renamed without its docs
// fails here. The two READMEs stay short enough to read: past their size, text moves to docs/.
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

/** The most lines each README may hold; what does not fit belongs in a page under docs/ that it links to. */
const README_LIMITS: Readonly<Record<string, number>> = { 'README.md': 200, 'chart/README.md': 300 };

/** A page longer than `limit` lines (as `wc -l` counts them), as a line saying what to do; none when it fits. */
function tooLong(page: string, text: string, limit: number): string[] {
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines <= limit) return [];
  return [`${page}: ${lines} lines, at most ${limit}: move text to a page under docs/ and link to it, rather than grow the README`];
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

describe('the READMEs', () => {
  it('stay within their size (README.md 200 lines, chart/README.md 300)', () => {
    const over = Object.entries(README_LIMITS).flatMap(([page, limit]) =>
      tooLong(page, readFileSync(join(PROJECT_ROOT, page), 'utf8'), limit),
    );
    expect(over, 'a README grew past its size: move whole sections to docs/ and leave a short paragraph with a link').toEqual([]);
  });

  it('the check catches a README one line too long, and passes one at its limit', () => {
    expect(tooLong('README.md', 'line\n'.repeat(201), 200)).toEqual([
      'README.md: 201 lines, at most 200: move text to a page under docs/ and link to it, rather than grow the README',
    ]);
    expect(tooLong('README.md', 'line\n'.repeat(200), 200)).toEqual([]);
    expect(tooLong('chart/README.md', `${'line\n'.repeat(300)}one more`, 300)).toHaveLength(1);
  });
});
