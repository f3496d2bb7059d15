/**
 * The one style sheet and the one script of the HTML report, and the Content Security Policy that
 * admits exactly them. They sit here, apart from the markup, so that they read as CSS and JavaScript.
 *
 * The policy names each by its SHA-256 hash, so a browser runs no other script and applies no other
 * style, even if some cluster-supplied text escaped its escaping; and it allows no fetch of any kind
 * (`default-src 'none'`), so opening the report never makes a request. That is also why the markup has
 * no `style=` attribute and no `on…=` handler: either would need `'unsafe-inline'`.
 *
 * @module
 */

import { createHash } from 'node:crypto';

/**
 * The style sheet: readable in light and dark mode, a fixed table layout and groups the browser lays
 * out only when scrolled to (`content-visibility`: fast with tens of thousands of rows), visible focus,
 * and `[hidden]` winning over any display rule so that filtering can hide rows.
 */
export const HTML_STYLE = `
:root {
  color-scheme: light dark;
  --fail: #b3261e;
  --warn: #8a4b00;
  --info: #0b57a8;
  --ok: #1b6b32;
  --muted: #57606a;
  --line: #d0d7de;
  --band: #f6f8fa;
  --focus: #0969da;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fail: #ff8a80;
    --warn: #ffc46b;
    --info: #8cc4ff;
    --ok: #8fd19e;
    --muted: #9da7b1;
    --line: #3d444d;
    --band: #161b22;
    --focus: #58a6ff;
  }
}
[hidden] { display: none !important; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 100rem; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; border-bottom: 2px solid var(--line); }
code, .mono, td.code, td.res { font-family: ui-monospace, monospace; font-size: 0.92em; }
a:focus-visible, input:focus-visible, select:focus-visible, button:focus-visible, summary:focus-visible {
  outline: 3px solid var(--focus);
  outline-offset: 2px;
}
.skip { position: absolute; left: -100rem; }
.skip:focus { left: 1rem; top: 0.5rem; background: Canvas; padding: 0.25rem 0.5rem; }
.counts { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; list-style: none; padding: 0; margin: 0.5rem 0; font-weight: 600; }
.s-FAIL { color: var(--fail); }
.s-WARN { color: var(--warn); }
.s-INFO { color: var(--info); }
.s-OK { color: var(--ok); }
.note { margin: 0.25rem 0; }
.incomplete { border-left: 4px solid var(--fail); padding: 0.25rem 0.75rem; }
#filters { display: flex; flex-wrap: wrap; gap: 0.75rem 1.5rem; align-items: end; margin: 1rem 0; padding: 0.75rem; background: var(--band); border: 1px solid var(--line); }
#filters fieldset { border: 0; margin: 0; padding: 0; display: flex; gap: 0.75rem; flex-wrap: wrap; }
#filters legend, #filters label.field { font-weight: 600; }
#filters label.field { display: flex; flex-direction: column; gap: 0.2rem; }
#filters input[type="search"] { min-width: 16rem; }
#shown { flex-basis: 100%; margin: 0; }
details.group { margin: 0.5rem 0; content-visibility: auto; contain-intrinsic-size: auto 20rem; }
details.group > summary { cursor: pointer; padding: 0.25rem 0; font-weight: 600; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
caption { text-align: left; font-weight: 600; }
th, td { text-align: left; vertical-align: top; padding: 0.3rem 0.5rem; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
th.code { width: 5.5rem; }
th.res { width: 32%; }
th.rule { width: 24%; }
.hint { color: var(--muted); margin: 0.25rem 0 0; }
table.attempts { width: auto; }
@media print {
  #filters, .skip { display: none; }
  details.group { content-visibility: visible; }
}
`;

/**
 * The filtering, added over a page that reads fine without it: it reveals the filter form, reads every
 * row once (its status, check, namespace and lower-cased text), and on each change shows the rows that
 * pass every filter, hides the groups and sections left empty, and says how many are shown. Only
 * attributes that differ are written, so a change touches few nodes even with 100,000 rows. Typing
 * waits for a pause of 80 ms, the count marked `aria-busy` meanwhile.
 */
export const HTML_SCRIPT = `
'use strict';
(() => {
  const form = document.getElementById('filters');
  if (form === null) return;
  const statusBoxes = Array.from(form.querySelectorAll('input[name="status"]'));
  const suppressedBox = document.getElementById('f-suppressed');
  const checkSelect = document.getElementById('f-check');
  const namespaceSelect = document.getElementById('f-namespace');
  const textInput = document.getElementById('f-text');
  const shownOut = document.getElementById('shown');
  const rowOf = (el) => ({
    el,
    status: el.dataset.status,
    suppressed: el.dataset.suppressed !== undefined,
    check: '=' + el.dataset.check,
    namespace: el.dataset.namespace === undefined ? '-' : '=' + el.dataset.namespace,
    text: [el.cells[0].lastElementChild.textContent, el.cells[1].textContent, el.cells[2].firstElementChild.textContent].join('\\n').toLowerCase(),
  });
  const groups = Array.from(document.querySelectorAll('details.group'), (el) => {
    const rows = Array.from(el.querySelectorAll('tr[data-status]'), rowOf);
    return { el, rows, count: el.querySelector('.count'), shown: rows.length };
  });
  const sections = Array.from(document.querySelectorAll('section.status'), (el) => ({
    el,
    groups: groups.filter((g) => el.contains(g.el)),
  }));
  const total = groups.reduce((n, g) => n + g.rows.length, 0);
  const apply = () => {
    const statuses = new Set(statusBoxes.filter((b) => b.checked).map((b) => b.value));
    const withSuppressed = suppressedBox === null || suppressedBox.checked;
    const check = checkSelect.value;
    const namespace = namespaceSelect.value;
    const text = textInput.value.trim().toLowerCase();
    let shown = 0;
    for (const g of groups) {
      let n = 0;
      for (const r of g.rows) {
        const show =
          statuses.has(r.status) &&
          (withSuppressed || !r.suppressed) &&
          (check === '' || r.check === check) &&
          (namespace === '' || r.namespace === namespace) &&
          (text === '' || r.text.includes(text));
        if (r.el.hidden === show) r.el.hidden = !show;
        if (show) n++;
      }
      if (g.el.hidden !== (n === 0)) g.el.hidden = n === 0;
      if (n !== g.shown) {
        g.shown = n;
        g.count.textContent = n === g.rows.length ? String(n) : n + ' of ' + g.rows.length;
      }
      shown += n;
    }
    for (const s of sections) {
      const empty = s.groups.every((g) => g.el.hidden);
      if (s.el.hidden !== empty) s.el.hidden = empty;
    }
    shownOut.textContent = 'Showing ' + shown + ' of ' + total + ' findings';
    shownOut.removeAttribute('aria-busy');
  };
  let pending;
  const applySoon = () => {
    clearTimeout(pending);
    shownOut.setAttribute('aria-busy', 'true');
    pending = setTimeout(apply, 80);
  };
  form.addEventListener('change', (e) => {
    if (e.target !== textInput) apply();
  });
  textInput.addEventListener('input', applySoon);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    clearTimeout(pending);
    apply();
  });
  document.getElementById('f-clear').addEventListener('click', () => {
    for (const b of statusBoxes) b.checked = true;
    if (suppressedBox !== null) suppressedBox.checked = true;
    checkSelect.value = '';
    namespaceSelect.value = '';
    textInput.value = '';
    clearTimeout(pending);
    apply();
  });
  form.hidden = false;
  apply();
})();
`;

/** The `'sha256-…'` source expression a Content Security Policy names an inline script or style by. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The report's Content Security Policy: nothing may load or connect (`default-src 'none'`, images
 * included), only {@link HTML_SCRIPT} may run and only {@link HTML_STYLE} apply, and no `<base>` or
 * form may point anywhere.
 */
export const HTML_CSP = [
  "default-src 'none'",
  `script-src ${cspHash(HTML_SCRIPT)}`,
  `style-src ${cspHash(HTML_STYLE)}`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
