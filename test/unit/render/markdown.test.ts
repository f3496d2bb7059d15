// The Markdown summary, rendered by GitHub's own Markdown renderer (cmark-gfm): counts, FAIL and WARN as a table
// linked to the docs, the rest folded, and nothing from the cluster able to close the table, make a
// link or an image, run HTML, mention a user or reference an issue; and it fits in a PR comment.
import { describe, expect, it } from 'vitest';
import { codeGuides } from '../../../src/checks/codes.ts';
import { makeReport, type Report } from '../../../src/report/finding.ts';
import { MAX_MARKDOWN_CHARS, markdownText } from '../../../src/report/render/markdown.ts';
import { findingsOf } from '../../support/findings.ts';
import { cmarkMissing, renderGfm } from '../../support/markdown/cmark.ts';
import { render } from '../../support/render.ts';

const cb = findingsOf('CacheBackendHealth');
const sv = findingsOf('ServerReachability');
const cp = findingsOf('CachePolicyCoverage');
const ep = findingsOf('EnginePodInjectionAudit');
const guides = codeGuides('https://docs.example.com/codes.md');
const markdown = (report: Report) => render(report, 'markdown');

/** Strings a cluster could put in a name or a status message, each trying something else. */
const HOSTILE = [
  'a | b | c',
  'line one\nline two\r\n| x | y |',
  '](https://evil.example) [click](https://evil.example)',
  '![tracker](https://evil.example/pixel.png)',
  '<img src=x onerror=alert(1)><script>alert(1)</script>',
  '</td></tr></table><h1>owned</h1>',
  '@octocat and @github/security please look',
  'fixes #1 and GH-2',
  'https://evil.example/path and www.evil.example and mail me@evil.example',
  '`code` **bold** _em_ ~~gone~~ <!-- comment -->',
  '&lt;entity&gt; &amp; \\ backslash',
  '\u001b[2J\u202eevil',
];

/** The rows of the first table of rendered HTML, each a list of its cells' inner HTML. */
function rowsOf(html: string): string[][] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => [...(m[1] ?? '').matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1] ?? ''));
}

/** The text of rendered HTML: tags removed, the entities cmark writes decoded, zero-width spaces dropped. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\u200b/g, '');
}

describe('Markdown summary', () => {
  const report = makeReport(
    [
      sv('SV001', undefined, 'no server Service found'),
      cb('CB001', 'cachebackend/prod/llama', 'Ready=False'),
      cp('CP001', 'namespace/prod', 'no CachePolicy'),
      ...Array.from({ length: 3 }, (_, i) => ep('EP002', `pod/prod/engine-${i}`, 'injected')),
    ],
    {
      guides,
      suppressed: [{ finding: cb('CB001', 'cachebackend/prod/old', 'Ready=False'), rule: { source: '--suppress', match: 'CB001=*/old' } }],
    },
  );

  it('opens with the counts and the exit code, then the FAIL and WARN findings, the rest folded', () => {
    const md = markdown(report);
    expect(md.split('\n')[0]).toBe('## inferencecache doctor: 1 FAIL, 1 WARN, 1 INFO, 3 OK (exit 2)');
    expect(md).toContain('<details><summary>1 INFO finding</summary>');
    expect(md).toContain('<details><summary>3 OK findings</summary>');
    expect(md).toContain('<details><summary>1 suppressed finding (never counted)</summary>');
  });

  it('says an incomplete run and a threshold other than the default', () => {
    const md = markdown(makeReport(report.findings, { guides, incomplete: 'interrupted by SIGTERM', failOn: 'FAIL' }));
    expect(md).toContain('> **Incomplete:** interrupted by SIGTERM. Findings are missing from this report.');
    expect(md).toContain('Findings at FAIL and above count for the exit code.');
    expect(markdown(makeReport([], { guides }))).toContain('No FAIL or WARN findings.');
  });

  describe.skipIf(cmarkMissing() !== '')(`as GitHub renders it${cmarkMissing() === '' ? '' : ` (skipped: ${cmarkMissing()})`}`, () => {
    it('is a table of the FAIL and WARN findings, each code linked to its docs with its hint', () => {
      const html = renderGfm(markdown(report));
      const rows = rowsOf(html);
      expect(rows.map((r) => r[0])).toEqual(['FAIL', 'WARN']);
      expect(rows[1]?.[1]).toBe('<a href="https://docs.example.com/codes.md#cb001">CB001</a>');
      expect(textOf(rows[1]?.[3] ?? '')).toMatch(/^Ready=False\s*hint: /);
    });

    it.each(HOSTILE.map((text) => [JSON.stringify(text).slice(0, 40), text]))(
      'keeps %s inert in a resource and a message',
      (_name, text) => {
        const hostile = makeReport([cb('CB001', `cachebackend/prod/${text}`, `Ready=False: ${text}`), sv('SV002', text, text)], { guides });
        const html = renderGfm(markdown(hostile));
        const rows = rowsOf(html);
        // The table holds its two rows of four cells: nothing closed it or added a row or a cell.
        expect(rows.map((r) => r.length)).toEqual([4, 4]);
        // No link but the docs links, no image, no HTML of the cluster's.
        expect([...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1])).toEqual([
          'https://docs.example.com/codes.md#sv002',
          'https://docs.example.com/codes.md#cb001',
        ]);
        expect(html).not.toMatch(/<(?:img|script|h1|svg|iframe)\b/i);
        expect(html.replaceAll('<em>hint:</em>', '')).not.toMatch(/<\/?(?:strong|em|del|code)\b/);
        // No mention and no issue reference: `@` and `#` are never right before a name or a number.
        expect(html).not.toMatch(/@[\w-]/);
        expect(html).not.toMatch(/#\d/);
        // Every character is still there to read: controls shown as escapes, the rest as written.
        const shown = text.replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace('\u001b', '\\x1b').replace('\u202e', '\\u202e');
        expect(textOf(rows[0]?.[2] ?? '')).toBe(shown);
        expect(textOf(rows[1]?.[3] ?? '')).toContain(shown);
      },
    );
  });

  it('escapes every ASCII punctuation character and breaks mentions, references and URLs', () => {
    expect(markdownText('a|b')).toBe('a\\|b');
    expect(markdownText('@x #1 http://y')).toBe('\\@&#8203;x \\#&#8203;1 http\\:&#8203;\\/\\/y');
  });

  it(`fits in a pull-request comment: at most ${MAX_MARKDOWN_CHARS} characters, saying how many findings it left out`, () => {
    const many = Array.from({ length: 5_000 }, (_, i) => cb('CB001', `cachebackend/prod/b${i}`, `Ready=False: ${'x'.repeat(200)}`));
    const md = markdown(makeReport(many, { guides }));
    expect(md.length).toBeLessThanOrEqual(MAX_MARKDOWN_CHARS);
    const shown = md.split('\n').filter((line) => line.startsWith('| WARN |')).length;
    expect(shown).toBeGreaterThan(50);
    expect(md).toContain(`${5_000 - shown} findings did not fit in this summary`);
  });
});
