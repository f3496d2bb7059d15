/**
 * The HTML report under test: a checker of what the page may hold (one script and one style, both
 * named by the policy's hashes; no handler attribute, no resource reference, no element or attribute
 * outside the renderer's own few), and the reports the unit and browser tests share: one that exercises
 * every filter, and one whose every cluster-supplied string is hostile markup.
 */
import { createHash } from 'node:crypto';
import type { CodeGuide, Finding, Report } from '../../src/report/finding.ts';
import { makeReport } from '../../src/report/finding.ts';
import { codeGuides } from '../../src/checks/codes.ts';
import { findingsOf } from './findings.ts';

/** The elements the renderer writes; anything else came from somewhere it should not have. */
const ELEMENTS = new Set(
  'html head meta title style body a header h1 h2 p strong ul li code br table caption thead tbody tr th td form fieldset legend label input select option button main section span details summary script'.split(
    ' ',
  ),
);

/** The attributes the renderer writes. */
const ATTRIBUTES = new Set(
  'lang charset http-equiv content name class id href rel hidden open type value checked for role scope autocomplete spellcheck aria-label aria-live aria-labelledby data-status data-check data-namespace data-suppressed'.split(
    ' ',
  ),
);

/** One start tag of the page, as the checker reads it. */
interface Tag {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
}

/**
 * The directives the report's policy must hold, exactly. The script and style hashes are checked apart
 * (against the page's own script and style).
 */
const POLICY = ["default-src 'none'", "img-src 'none'", "base-uri 'none'", "form-action 'none'"];

/** The base64 SHA-256 of `text`, as a policy's `'sha256-…'` names it. */
function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

/**
 * What is wrong with `html` as a report page, one line each; none for a good page. The reading is
 * strict on purpose: outside the one script and style, the renderer escapes every `<`, `"` and `'` of
 * the report's text, so every `<` left starts a tag of its own and every attribute value is quoted
 * without a quote inside. Anything else is reported.
 */
export function htmlProblems(html: string): string[] {
  const problems: string[] = [];
  if (!html.startsWith('<!doctype html>\n')) problems.push('does not start with <!doctype html>');
  const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)];
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)];
  if (scripts.length !== 1) problems.push(`${scripts.length} <script> elements, want 1`);
  if (styles.length !== 1) problems.push(`${styles.length} <style> elements, want 1`);
  const script = scripts[0]?.[1] ?? '';
  const style = styles[0]?.[1] ?? '';
  for (const risky of [
    'fetch(',
    'XMLHttpRequest',
    'import(',
    'WebSocket',
    'EventSource',
    'sendBeacon',
    '.src',
    'innerHTML',
    'eval(',
    'http',
  ])
    if (script.includes(risky)) problems.push(`the script uses ${risky}`);
  for (const risky of ['url(', '@import', 'http']) if (style.includes(risky)) problems.push(`the style uses ${risky}`);

  const rest = html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, '<script></script>')
    .replace(/<style\b[^>]*>[\s\S]*?<\/style>/gi, '<style></style>');
  const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*>/y;
  const tags: Tag[] = [];
  for (let at = rest.indexOf('<'); at >= 0; at = rest.indexOf('<', at + 1)) {
    if (at === 0 && rest.startsWith('<!doctype html>')) continue;
    TAG.lastIndex = at;
    const m = TAG.exec(rest);
    if (m === null) {
      problems.push(`a "<" that starts no tag: ${JSON.stringify(rest.slice(at, at + 60))}`);
      continue;
    }
    if (m[1] === '/') continue;
    const name = (m[2] ?? '').toLowerCase();
    const attributes = new Map(
      [...(m[3] ?? '').matchAll(/([a-zA-Z-]+)(?:="([^"]*)")?/g)].map((a) => [(a[1] ?? '').toLowerCase(), a[2] ?? '']),
    );
    tags.push({ name, attributes });
  }
  for (const tag of tags) {
    if (!ELEMENTS.has(tag.name)) problems.push(`an element the renderer does not write: <${tag.name}>`);
    for (const [attr, value] of tag.attributes) {
      if (attr.startsWith('on')) problems.push(`an event handler attribute: <${tag.name} ${attr}>`);
      else if (attr === 'style') problems.push(`a style attribute: <${tag.name} style>`);
      else if (!ATTRIBUTES.has(attr)) problems.push(`an attribute the renderer does not write: <${tag.name} ${attr}>`);
      if (attr === 'href' && (tag.name !== 'a' || !/^(?:#[\w-]+|https?:\/\/[^\s]+)$/.test(value)))
        problems.push(`an href that is not an http(s) link or a fragment: <${tag.name} href="${value}">`);
      if (attr === 'http-equiv' && value.toLowerCase() !== 'content-security-policy')
        problems.push(`a <meta http-equiv> other than the policy: ${value}`);
    }
  }

  const policies = tags.filter((t) => t.name === 'meta' && t.attributes.get('http-equiv')?.toLowerCase() === 'content-security-policy');
  if (policies.length !== 1) problems.push(`${policies.length} Content-Security-Policy <meta> elements, want 1`);
  const directives = (policies[0]?.attributes.get('content') ?? '').split(';').map((d) => d.trim());
  const want = [...POLICY, `script-src 'sha256-${sha256(script)}'`, `style-src 'sha256-${sha256(style)}'`].sort();
  if (JSON.stringify([...directives].sort()) !== JSON.stringify(want))
    problems.push(
      `the policy is ${JSON.stringify(directives)}, want ${JSON.stringify(want)} (the hashes of the page's own script and style)`,
    );
  const policyAt = html.indexOf('http-equiv="Content-Security-Policy"');
  if (policyAt < 0 || policyAt > html.indexOf('<style>') || policyAt > html.indexOf('</head>'))
    problems.push('the policy is not in the head before the style');
  return problems;
}

/** A guide with `hint` and `docs` (its other fields a real code's, whatever the guide holds). */
function guide(hint: string, docs: string): CodeGuide {
  const real = codeGuides().get('CB001');
  if (real === undefined) throw new Error('CB001 has no guide');
  return { ...real, hint, docs };
}

const cb = findingsOf('CacheBackendHealth');
const ep = findingsOf('EnginePodInjectionAudit');
const ct = findingsOf('CacheTenantHealth');
const sv = findingsOf('ServerReachability');
const op = findingsOf('OrphanPodCheck');

/**
 * A report for the filters: every status, four checks, three namespaces and findings about none,
 * a suppressed finding, hints and docs links.
 */
export const FILTER_REPORT: Report = makeReport(
  [
    sv('SV001', undefined, 'no cache-plane server Service was found in any namespace'),
    cb('CB001', 'cachebackend/prod/llama', 'Ready=False: waiting for the remote tier'),
    cb('CB002', 'cachebackend/staging/mistral', 'the engineSelector matches no engine pod'),
    cb('CB006', 'cachebackend/prod/qwen', 'healthy'),
    ep('EP001', 'pod/prod/engine-7', 'engine pod carries no injection marker'),
    ep('EP002', 'pod/prod/engine-8', 'engine pod was injected'),
    ep('EP002', 'pod/dev/engine-9', 'engine pod was injected'),
    ct('CT002', 'cachetenant/dev/team-b', 'within quota'),
    op('OP001', 'pod/staging/web-3', 'NoMatchingCacheBackend 2m ago'),
  ],
  {
    suppressed: [
      {
        finding: ct('CT001', 'cachetenant/prod/team-a', 'over quota: 1200 entries'),
        rule: {
          source: 'rules.yaml:3',
          match: 'CT001=cachetenant/prod/*',
          reason: 'quotas are the platform team’s',
          expires: '2031-01-31',
        },
      },
    ],
    guides: new Map<string, CodeGuide>([
      ['SV001', guide('Install the server.', 'https://docs.example/codes#sv001')],
      ['CB001', guide('Read the condition.', 'https://docs.example/codes#cb001')],
      ['CB002', guide('Compare the labels.', 'https://docs.example/codes#cb002')],
      ['EP001', guide('Check the webhook.', 'https://docs.example/codes#ep001')],
      ['OP001', guide('Add a CacheBackend.', 'https://docs.example/codes#op001')],
      ['CT001', guide('Raise the quota.', 'https://docs.example/codes#ct001')],
    ]),
  },
);

/** Markup and script that must stay text; run, each sets `window.__pwned`. */
export const HOSTILE_MARKUP = [
  '<script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=1">',
  '</table><svg onload="window.__pwned=1">',
  '"><img src=x onerror=window.__pwned=1>',
  "'><a href=javascript:window.__pwned=1>x</a>",
  '</td></tr></tbody></table></details></section></main><script>window.__pwned=1</script>',
  '<!-- <style>body{display:none}</style> -->',
  '</title></style></textarea><iframe srcdoc="<script>parent.__pwned=1</script>">',
] as const;

/** A finding whose every string is hostile: `check`, `resource` and `message` given in full. */
function hostile(code: string, status: Finding['status'], check: string, resource: string, message: string): Finding {
  return { code, status, check, resource, message };
}

/**
 * Every string a cluster (or an operator's flags) can put into a report, hostile: markup in checks,
 * resources, namespaces and messages, in a suppression rule, an incomplete reason and a code; controls
 * (a screen clear, a NUL, a newline, a bidi override); docs links that are `javascript:` and `data:`, or
 * an http link carrying markup.
 */
export const HOSTILE_REPORT: Report = makeReport(
  [
    hostile('CB001', 'FAIL', HOSTILE_MARKUP[0], `cachebackend/${HOSTILE_MARKUP[1]}/x`, HOSTILE_MARKUP[2]),
    hostile('CB002', 'WARN', HOSTILE_MARKUP[3], `pod/${HOSTILE_MARKUP[4].replace('</a>', '')}/y`, HOSTILE_MARKUP[5]),
    hostile('<b>XX1</b>', 'INFO', 'CacheBackendHealth', HOSTILE_MARKUP[6], HOSTILE_MARKUP[7]),
    hostile(
      'CB006',
      'OK',
      'CacheBackendHealth',
      'cachebackend/prod/\u001b[2Jwiped',
      'a NUL \u0000 a newline \n and \u202egnp.exe then & "quotes" \'single\'',
    ),
  ],
  {
    incomplete: `interrupted ${HOSTILE_MARKUP[0]}`,
    failOn: 'INFO',
    attempts: [{ attempt: 1, elapsedMs: 1500, exitCode: 2, counted: ['CB001', HOSTILE_MARKUP[1]] }],
    suppressed: [
      {
        finding: hostile('CT001', 'WARN', HOSTILE_MARKUP[2], `cachetenant/${HOSTILE_MARKUP[3]}/t`, HOSTILE_MARKUP[0]),
        rule: {
          source: `annotation on ${HOSTILE_MARKUP[1]}`,
          match: HOSTILE_MARKUP[3],
          reason: HOSTILE_MARKUP[4],
          expires: HOSTILE_MARKUP[0],
        },
      },
    ],
    guides: new Map<string, CodeGuide>([
      ['CB001', guide(HOSTILE_MARKUP[1], 'javascript:window.__pwned=1//#cb001')],
      ['CB002', guide(HOSTILE_MARKUP[0], 'data:text/html,<script>window.__pwned=1</script>')],
      ['<b>XX1</b>', guide('h', `https://docs.example/${HOSTILE_MARKUP[3]}`)],
      ['CT001', guide('h', ' \u0001JavaScript:window.__pwned=1')],
    ]),
  },
);
