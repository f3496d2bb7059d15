/**
 * `-o html`: what the page may hold (checked for every report of a table, and the checker itself
 * checked on pages planted with what it must catch), hostile cluster text kept text, the grouping and
 * the filters' data, and a report written piece by piece. The browser's view of the same pages is in
 * html-browser.test.ts; the golden files in golden.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeGuides } from '../../../src/checks/codes.ts';
import { makeReport, type Finding, type Report } from '../../../src/report/finding.ts';
import { HTML_CSP, HTML_SCRIPT, HTML_STYLE, cspHash } from '../../../src/report/render/html-assets.ts';
import { renderHtml } from '../../../src/report/render/html.ts';
import { findingsOf } from '../../support/findings.ts';
import { FILTER_REPORT, HOSTILE_MARKUP, HOSTILE_REPORT, htmlProblems } from '../../support/html-report.ts';
import { render } from '../../support/render.ts';

const html = (report: Report) => [...renderHtml(report)].join('');

const cb = findingsOf('CacheBackendHealth');
const ep = findingsOf('EnginePodInjectionAudit');

const REPORTS: readonly (readonly [string, Report])[] = [
  ['an empty report', makeReport([])],
  ['the filter report (every status, a suppressed finding, hints)', FILTER_REPORT],
  ['hostile cluster text', HOSTILE_REPORT],
  [
    'an incomplete report with --fail-on and attempts',
    makeReport([cb('CB001', 'cachebackend/a/b', 'x')], {
      incomplete: 'interrupted by SIGTERM',
      failOn: 'FAIL',
      attempts: [{ attempt: 1, elapsedMs: 10, exitCode: 1, counted: ['CB001'] }],
    }),
  ],
  [
    'the code table’s own docs links',
    makeReport([cb('CB001', 'cachebackend/a/b', 'x'), cb('CB002', undefined, 'y')], { guides: codeGuides() }),
  ],
];

describe('every page holds only what the renderer writes', () => {
  it.each(REPORTS)('%s', (_, report) => {
    expect(htmlProblems(html(report))).toEqual([]);
  });

  it('the writer the doctor command loads for -o html is this renderer', () => {
    expect(render(FILTER_REPORT, 'html')).toBe(html(FILTER_REPORT));
  });

  it('the policy names the exact script and style by their SHA-256, and forbids every fetch', () => {
    const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    expect(HTML_CSP).toBe(
      `default-src 'none'; script-src ${sha(HTML_SCRIPT)}; style-src ${sha(HTML_STYLE)}; img-src 'none'; base-uri 'none'; form-action 'none'`,
    );
    expect(cspHash('')).toBe("'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
    const page = html(FILTER_REPORT);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="${HTML_CSP}">`);
    expect(page).toContain(`<script>${HTML_SCRIPT}</script>`);
    expect(page).toContain(`<style>${HTML_STYLE}</style>`);
  });
});

describe('the checker catches what a page must not hold (so the checks above can fail)', () => {
  const good = html(FILTER_REPORT);
  const PLANTED: readonly (readonly [string, string, RegExp])[] = [
    [
      'an event handler',
      good.replace('<main id="findings">', '<main id="findings" onclick="x()">'),
      /event handler attribute: <main onclick>/,
    ],
    [
      'markup left unescaped',
      good.replace('healthy', '"><img src=x onerror=alert(1)>'),
      /element the renderer does not write: <img>|"<" that starts no tag/,
    ],
    ['a second script', good.replace('</main>', '<script>alert(1)</script></main>'), /2 <script> elements/],
    ['a script the policy does not name', good.replace("'use strict';", "'use strict'; alert(1);"), /the policy is/],
    ['a style attribute', good.replace('<main id="findings">', '<main id="findings" style="color:red">'), /a style attribute/],
    [
      'a javascript: link',
      good.replace('href="https://docs.example/codes#cb001"', 'href="javascript:alert(1)"'),
      /href that is not an http\(s\) link/,
    ],
    [
      'an external style sheet',
      good.replace('</head>', '<link rel="stylesheet" href="https://cdn.example/x.css">\n</head>'),
      /element the renderer does not write: <link>/,
    ],
    ['an image', good.replace('</main>', '<img src="https://tracker.example/p.gif"></main>'), /element the renderer does not write: <img>/],
    ['a fetch in the script', good.replace("'use strict';", "'use strict'; fetch('/x');"), /the script uses fetch\(/],
    ['a loosened policy', good.replace("default-src 'none'", 'default-src *'), /the policy is/],
    ['a url() in the style', good.replace('[hidden]', '@font-face { src: url(x.woff) } [hidden]'), /the style uses url\(/],
    [
      'a refresh',
      good.replace('<meta name="referrer"', '<meta http-equiv="refresh" content="0; url=https://x.example"><meta name="referrer"'),
      /http-equiv> other than the policy/,
    ],
  ];
  it.each(PLANTED)('%s', (_, page, want) => {
    const problems = htmlProblems(page);
    expect(problems.join('\n')).toMatch(want);
  });
});

describe('hostile cluster text stays text', () => {
  const page = html(HOSTILE_REPORT);
  const escaped = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

  it.each(HOSTILE_MARKUP.map((m) => [m]))('%s appears only escaped', (markup) => {
    expect(page).not.toContain(markup);
    expect(page).toContain(escaped(markup));
  });

  const CASES: readonly (readonly [string, string, boolean])[] = [
    ['a screen clear is shown, not sent', '\\x1b[2Jwiped', true],
    ['a NUL is shown', 'a NUL \\x00 a newline \\n and', true],
    ['a bidi override is shown', '\\u202egnp.exe', true],
    ['quotes are entities', 'then &amp; &quot;quotes&quot; &#39;single&#39;', true],
    ['no raw ESC', '\u001b', false],
    ['no raw bidi override', '\u202e', false],
    ['no raw NUL', '\u0000', false],
    ['a javascript: docs link is not a link', 'href="javascript', false],
    ['… but is shown as text', 'See javascript:window.__pwned=1//#cb001', true],
    ['a data: docs link is not a link', 'href="data:', false],
    ['… but is shown as text, escaped', 'See data:text/html,&lt;script&gt;', true],
    ['a javascript: link hiding behind a control and a space is not a link', 'href=" ', false],
    ['… and is shown with the control visible', 'See  \\x01JavaScript:window.__pwned=1', true],
    [
      'an http link carrying markup is percent-encoded in the href',
      'href="https://docs.example/%22%3E%3Cimg%20src=x%20onerror=window.__pwned=1%3E"',
      true,
    ],
    ['… and escaped in the text', '>https://docs.example/&quot;&gt;&lt;img src=x onerror=window.__pwned=1&gt;</a>', true],
    ['a hostile namespace is an escaped option', '<option value="=&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;">', true],
    ['a hostile check is an escaped data attribute', 'data-check="&lt;script&gt;window.__pwned=1&lt;/script&gt;"', true],
    ['a hostile code is escaped', '<span>&lt;b&gt;XX1&lt;/b&gt;</span>', true],
    ['the incomplete reason is escaped', '<strong>Incomplete:</strong> interrupted &lt;script&gt;', true],
  ];
  it.each(CASES)('%s', (_, text, present) => {
    if (present) expect(page).toContain(text);
    else expect(page).not.toContain(text);
  });

  it('only http(s) docs links become links', () => {
    const hrefs = [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs).toEqual(['#findings', '#suppressed', 'https://docs.example/%22%3E%3Cimg%20src=x%20onerror=window.__pwned=1%3E']);
  });
});

describe('grouping and the data the filters read', () => {
  const page = html(FILTER_REPORT);

  it('sections by status, most severe first, then the suppressed findings; groups by check in run order', () => {
    const headings = [
      ...page.matchAll(/<section class="status" id="([^"]+)"|<summary>([^<]*) \(<span class="count">(\d+)<\/span>\)<\/summary>/g),
    ].map((m) => (m[1] === undefined ? `  ${m[2] ?? ''} ${m[3] ?? ''}` : (m[1] ?? '')));
    expect(headings).toEqual([
      'fail',
      '  ServerReachability 1',
      'warn',
      '  CacheBackendHealth 2',
      '  EnginePodInjectionAudit 1',
      '  OrphanPodCheck 1',
      'ok',
      '  CacheBackendHealth 1',
      '  EnginePodInjectionAudit 2',
      '  CacheTenantHealth 1',
      'suppressed',
      '  CacheTenantHealth 1',
    ]);
  });

  it('problems start open, OK and suppressed findings folded', () => {
    const open = [...page.matchAll(/<section class="status" id="([^"]+)"|<details class="group"( open)?>/g)].map(
      (m) => m[1] ?? (m[2] === undefined ? 'closed' : 'open'),
    );
    expect(open).toEqual(['fail', 'open', 'warn', 'open', 'open', 'open', 'ok', 'closed', 'closed', 'closed', 'suppressed', 'closed']);
  });

  const ROWS: readonly (readonly [string, string])[] = [
    ['a finding about no resource has no namespace', '<tr data-status="FAIL" data-check="ServerReachability"><td class="code">'],
    ['a namespaced resource names its namespace', '<tr data-status="WARN" data-check="CacheBackendHealth" data-namespace="staging">'],
    [
      'a suppressed finding keeps its status and is marked',
      '<tr data-status="WARN" data-check="CacheTenantHealth" data-namespace="prod" data-suppressed="">',
    ],
    [
      '… with the rule that silenced it',
      '<td><code>CT001=cachetenant/prod/*</code> (rules.yaml:3): quotas are the platform team’s<br>until 2031-01-31</td>',
    ],
    [
      'a finding that is not OK carries its hint and docs link',
      '<p class="hint">Compare the labels. See <a href="https://docs.example/codes#cb002" rel="noreferrer">https://docs.example/codes#cb002</a></p>',
    ],
    [
      'the namespaces offered are those of the rows, sorted, after all and none',
      '<option value="">all namespaces</option>\n<option value="-">(none)</option>\n<option value="=dev">dev</option>\n<option value="=prod">prod</option>\n<option value="=staging">staging</option>\n</select>',
    ],
    [
      'the checks offered are those of the rows, sorted',
      '<option value="">all checks</option>\n<option value="=CacheBackendHealth">CacheBackendHealth</option>\n<option value="=CacheTenantHealth">CacheTenantHealth</option>\n<option value="=EnginePodInjectionAudit">EnginePodInjectionAudit</option>\n<option value="=OrphanPodCheck">OrphanPodCheck</option>\n<option value="=ServerReachability">ServerReachability</option>\n</select>',
    ],
    [
      'a status box per status present, and one for the suppressed',
      '<input type="checkbox" name="status" value="FAIL" checked> FAIL</label>\n<label><input type="checkbox" name="status" value="WARN" checked> WARN</label>\n<label><input type="checkbox" name="status" value="OK" checked> OK</label>\n<label><input type="checkbox" id="f-suppressed" checked> suppressed</label>',
    ],
    ['the filters wait for the script', '<form id="filters" role="search" aria-label="Filter findings" hidden>'],
    [
      'the summary counts and the exit code',
      '<p class="note"><strong>Exit code 2</strong>: failures</p>\n<ul class="counts" aria-label="Findings by status"><li class="s-FAIL">1 FAIL</li><li class="s-WARN">4 WARN</li><li class="s-INFO">0 INFO</li><li class="s-OK">4 OK</li></ul>',
    ],
  ];
  it.each(ROWS)('%s', (_, text) => {
    expect(page).toContain(text);
  });

  it('offers "(none)" only when some finding names no namespace', () => {
    expect(html(makeReport([cb('CB001', 'cachebackend/a/b', 'x')]))).not.toContain('<option value="-">');
    expect(html(makeReport([cb('CB001', 'cachebackend/a/b', 'x'), cb('CB002', undefined, 'y')]))).toContain(
      '<option value="-">(none)</option>',
    );
  });

  it('an OK finding has no hint, even when its code has a guide', () => {
    const report = makeReport([cb('CB006', 'cachebackend/a/b', 'healthy')], { guides: codeGuides('https://d.example/') });
    expect(html(report)).not.toContain('class="hint"');
  });

  it('the summary names --fail-on, the incomplete reason and each attempt', () => {
    const page2 = html(REPORTS[3]?.[1] ?? makeReport([]));
    expect(page2).toContain('<strong>Exit code 4</strong>: interrupted (the report is incomplete)');
    expect(page2).toContain('Only findings at FAIL or above count for the exit code (<code>--fail-on fail</code>).');
    expect(page2).toContain('<strong>Incomplete:</strong> interrupted by SIGTERM;');
    expect(page2).toContain('<tr><td>1</td><td>0s</td><td>1</td><td>CB001</td></tr>');
  });

  it('an empty report says so and offers no filter', () => {
    const page2 = html(makeReport([]));
    expect(page2).toContain('<p>The report holds no findings.</p>');
    expect(page2).not.toContain('<form');
  });
});

describe('written piece by piece', () => {
  it('100,000 findings come as many small pieces, the first before the rest are written', () => {
    const findings: Finding[] = Array.from({ length: 100_000 }, (_, i) =>
      i % 2 === 0
        ? ep('EP002', `pod/ns-${i % 50}/engine-${i}`, 'engine pod was injected')
        : ep('EP001', `pod/ns-${i % 50}/engine-${i}`, 'engine pod carries no injection marker'),
    );
    const pieces = renderHtml(makeReport(findings, { guides: codeGuides() }));
    const first = pieces.next();
    expect(first.done).toBe(false);
    let count = 1;
    let largest = first.value?.length ?? 0;
    let total = largest;
    for (const piece of pieces) {
      count++;
      largest = Math.max(largest, piece.length);
      total += piece.length;
    }
    expect(count).toBeGreaterThan(100_000);
    expect(largest).toBeLessThan(16_384);
    expect(total).toBeGreaterThan(30_000_000);
  }, 60_000);
});
