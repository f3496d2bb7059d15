/**
 * `-o html` in a real browser (Debian's Chromium, headless): the filters, alone and together; the Tab
 * key reaching every control; the page without JavaScript; hostile cluster text staying text with no
 * script run. Every page must make no request, log nothing and break no rule of its policy; the
 * harness is shown to catch a page that does. A failing test leaves a screenshot in test-artefacts/.
 * The report of the full scale scenario is opened and timed in test/process/html-report.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Report } from '../../../src/report/finding.ts';
import { renderHtml } from '../../../src/report/render/html.ts';
import { chromiumMissing, startChromium, type Chromium, type WatchedPage } from '../../support/browser/chromium.ts';
import { clearFilters, controls, focusOrder, setFilters, settled, shown, type Filters } from '../../support/browser/report-page.ts';
import { FILTER_REPORT, HOSTILE_MARKUP, HOSTILE_REPORT } from '../../support/html-report.ts';

const missing = chromiumMissing();

/** The rows of FILTER_REPORT, in page order, as `shown` lists them. */
const ALL = [
  'SV001',
  'CB001 cachebackend/prod/llama',
  'CB002 cachebackend/staging/mistral',
  'EP001 pod/prod/engine-7',
  'OP001 pod/staging/web-3',
  'CB006 cachebackend/prod/qwen',
  'EP002 pod/prod/engine-8',
  'EP002 pod/dev/engine-9',
  'CT002 cachetenant/dev/team-b',
  'CT001 cachetenant/prod/team-a',
] as const;

/** Filters, and the rows, count and sections the page must then show. */
const FILTERS: readonly (readonly [name: string, filters: Filters, rows: readonly string[], sections: readonly string[]])[] = [
  ['FAIL only', { statuses: ['FAIL'] }, ['SV001'], ['fail']],
  ['WARN with the suppressed', { statuses: ['WARN'] }, [ALL[1], ALL[2], ALL[3], ALL[4], ALL[9]], ['warn', 'suppressed']],
  ['WARN without the suppressed', { statuses: ['WARN'], suppressed: false }, [ALL[1], ALL[2], ALL[3], ALL[4]], ['warn']],
  ['one check', { check: 'CacheBackendHealth' }, [ALL[1], ALL[2], ALL[5]], ['warn', 'ok']],
  ['one namespace', { namespace: 'prod' }, [ALL[1], ALL[3], ALL[5], ALL[6], ALL[9]], ['warn', 'ok', 'suppressed']],
  ['no namespace', { namespace: null }, ['SV001'], ['fail']],
  ['text in a resource, any case', { text: 'ENGINE-' }, [ALL[3], ALL[6], ALL[7]], ['warn', 'ok']],
  ['text in a message', { text: 'quota' }, [ALL[8], ALL[9]], ['ok', 'suppressed']],
  ['text in a code', { text: 'cb00' }, [ALL[1], ALL[2], ALL[5]], ['warn', 'ok']],
  ['text only in a hint matches nothing', { text: 'compare the labels' }, [], []],
  [
    'status, check, namespace and text together',
    { statuses: ['WARN', 'OK'], check: 'EnginePodInjectionAudit', namespace: 'prod', text: 'engine' },
    [ALL[3], ALL[6]],
    ['warn', 'ok'],
  ],
];

describe.skipIf(missing !== '')(`-o html in Chromium${missing === '' ? '' : ` (skipped: ${missing})`}`, () => {
  let chromium: Chromium;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'icd-html-'));
    chromium = await startChromium();
  }, 120_000);

  afterAll(async () => {
    await chromium.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Writes `report` as `<name>.html`, opens it, and keeps a screenshot of it if the test fails. */
  async function open(name: string, html: string, options: { readonly javascript?: boolean } = {}): Promise<WatchedPage> {
    const file = join(dir, `${name}.html`);
    writeFileSync(file, html);
    const view = await chromium.open(file, options);
    onTestFailed(async () => {
      const path = await view.screenshot(`html-browser-${name}`);
      console.error(`screenshot of the failed page: ${path}`);
    });
    return view;
  }

  const page = (report: Report) => [...renderHtml(report)].join('');

  /** The page made no request, logged nothing, threw nothing, and broke no rule of its policy. */
  async function expectClean(view: WatchedPage): Promise<void> {
    expect(view.requests).toEqual([]);
    expect(view.console).toEqual([]);
    expect(view.errors).toEqual([]);
    expect(await view.violations()).toEqual([]);
  }

  describe('the filters', () => {
    let view: WatchedPage;
    beforeAll(async () => {
      const file = join(dir, 'filters.html');
      writeFileSync(file, page(FILTER_REPORT));
      view = await chromium.open(file);
    }, 60_000);

    it('start with every finding shown, the script revealing the controls', async () => {
      onTestFailed(async () => void (await view.screenshot('html-browser-filters-start')));
      expect(await view.page.$eval('#filters', (el) => el.hidden)).toBe(false);
      const now = await shown(view.page);
      expect(now.rows).toEqual(ALL);
      expect(now.count).toBe('Showing 10 of 10 findings');
      expect(now.sections).toEqual(['fail', 'warn', 'ok', 'suppressed']);
    });

    it.each(FILTERS)('%s', async (name, filters, rows, sections) => {
      onTestFailed(async () => void (await view.screenshot(`html-browser-filters-${name}`)));
      await clearFilters(view.page);
      await setFilters(view.page, filters);
      const now = await shown(view.page);
      expect(now.rows).toEqual(rows);
      expect(now.count).toBe(`Showing ${rows.length} of 10 findings`);
      expect(now.sections).toEqual(sections);
    });

    it('count a group’s rows shown out of its rows', async () => {
      await clearFilters(view.page);
      await setFilters(view.page, { check: 'EnginePodInjectionAudit', namespace: 'prod' });
      expect((await shown(view.page)).groups).toEqual(['EnginePodInjectionAudit (1)', 'EnginePodInjectionAudit (1 of 2)']);
    });

    it('clear back to every finding', async () => {
      await setFilters(view.page, { statuses: ['OK'], suppressed: false, check: 'CacheTenantHealth', namespace: 'dev', text: 'team' });
      expect((await shown(view.page)).rows).toEqual([ALL[8]]);
      await clearFilters(view.page);
      const now = await shown(view.page);
      expect(now.rows).toEqual(ALL);
      expect(now.count).toBe('Showing 10 of 10 findings');
      expect(await view.page.$eval('#f-text', (el) => el.value)).toBe('');
    });

    it('made no request, logged nothing and broke no rule of the policy', async () => {
      await expectClean(view);
    });
  });

  describe('the keyboard', () => {
    it('Tab from the top reaches the skip link, every filter control and every group, in page order', async () => {
      const view = await open('keyboard', page(FILTER_REPORT));
      const order = await focusOrder(view.page, 200);
      const wanted = await controls(view.page);
      // Three status boxes, the suppressed box, two lists, the text, the button; eight groups.
      expect(wanted).toHaveLength(8 + 8);
      expect(order[0]).toBe('a:#findings');
      expect(order.filter((el) => wanted.includes(el))).toEqual(wanted);
      await expectClean(view);
    });

    it('Space ticks a status box and Enter opens a group, with no mouse', async () => {
      const view = await open('keyboard-act', page(FILTER_REPORT));
      await view.page.focus('input[name="status"][value="OK"]');
      await view.page.keyboard.press('Space');
      await settled(view.page);
      expect((await shown(view.page)).count).toBe('Showing 6 of 10 findings');
      await view.page.keyboard.press('Space');
      await settled(view.page);
      const summary = '#suppressed details.group > summary';
      expect(await view.page.$eval(summary, (el) => (el.parentElement as { open: boolean }).open)).toBe(false);
      await view.page.focus(summary);
      await view.page.keyboard.press('Enter');
      expect(await view.page.$eval(summary, (el) => (el.parentElement as { open: boolean }).open)).toBe(true);
      await view.page.focus('#f-text');
      await view.page.keyboard.type('mistral');
      await settled(view.page);
      expect((await shown(view.page)).rows).toEqual([ALL[2]]);
      await expectClean(view);
    });
  });

  it('without JavaScript every finding is shown and no control that would do nothing', async () => {
    const view = await open('no-javascript', page(FILTER_REPORT), { javascript: false });
    const now = await shown(view.page);
    expect(now.rows).toEqual(ALL);
    expect(await view.page.$eval('#filters', (el) => el.hidden)).toBe(true);
    expect(await view.page.$eval('#fail details', (el) => el.open)).toBe(true);
    expect(await view.page.$eval('body', (el) => el.innerText)).toContain('Read the condition. See https://docs.example/codes#cb001');
    await expectClean(view);
  });

  describe('hostile cluster text', () => {
    let view: WatchedPage;
    beforeAll(async () => {
      const file = join(dir, 'hostile.html');
      writeFileSync(file, page(HOSTILE_REPORT));
      view = await chromium.open(file);
    }, 60_000);

    it('runs no script: nothing set window.__pwned', async () => {
      onTestFailed(async () => void (await view.screenshot('html-browser-hostile')));
      // Open every group, so that markup inside a folded one would have had its chance too.
      await view.page.$$eval('details', (els) => els.forEach((el) => (el.open = true)));
      await view.page.evaluate(() => new Promise((r) => setTimeout(r, 500)));
      expect(await view.page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
    });

    it('creates no element of its own', async () => {
      const count = (selector: string) => view.page.$$eval(selector, (els) => els.length);
      expect(await count('script')).toBe(1);
      expect(await count('img, svg, iframe, object, embed, link, textarea, base')).toBe(0);
      expect(await count('a')).toBe(3);
      expect(await count('tr[data-status]')).toBe(5);
      expect(await count('table')).toBe((await count('details.group')) + 1);
    });

    it.each(HOSTILE_MARKUP.map((m) => [m]))('shows %s as text', async (markup) => {
      expect(await view.page.$eval('main', (el) => el.textContent)).toContain(markup);
    });

    it('shows controls visibly, and the hostile names as choices that filter', async () => {
      expect(await view.page.$eval('main', (el) => el.textContent)).toContain('cachebackend/prod/\\x1b[2Jwiped');
      const options = await view.page.$$eval('#f-check option, #f-namespace option', (els) => els.map((el) => el.textContent));
      expect(options).toEqual(expect.arrayContaining([HOSTILE_MARKUP[0], HOSTILE_MARKUP[3], HOSTILE_MARKUP[1]]));
      await setFilters(view.page, { check: HOSTILE_MARKUP[0] });
      expect((await shown(view.page)).rows).toEqual([`CB001 cachebackend/${HOSTILE_MARKUP[1]}/x`]);
      await clearFilters(view.page);
      await setFilters(view.page, { text: '<svg onload' });
      expect((await shown(view.page)).count).toBe('Showing 1 of 5 findings');
    });

    it('made no request, logged nothing and broke no rule of the policy', async () => {
      await expectClean(view);
    });
  });

  describe('the harness catches a page that misbehaves (so the checks above can fail)', () => {
    it('a script, a style attribute and an image the policy forbids: violations, console errors', async () => {
      const planted = page(FILTER_REPORT).replace(
        '<main id="findings">',
        '<main id="findings"><div style="color:red">x</div><img src="https://tracker.example/p.gif" alt=""><script>window.__ran=1</script>',
      );
      const view = await open('planted-csp', planted);
      expect(await view.page.evaluate(() => (globalThis as { __ran?: unknown }).__ran)).toBeUndefined();
      const violations = await view.violations();
      expect(violations).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^script-src/),
          expect.stringMatching(/^img-src/),
          expect.stringMatching(/^style-src/),
        ]),
      );
      expect(view.console.length).toBeGreaterThan(0);
    });

    it('a page without the policy that loads an image: a request, refused', async () => {
      const planted =
        '<!doctype html><html lang="en"><head><title>t</title></head><body><img src="https://tracker.example/p.gif" alt=""></body></html>';
      const view = await open('planted-request', planted);
      expect(view.requests).toEqual(['https://tracker.example/p.gif']);
    });

    it('a script that throws: an error', async () => {
      const view = await open(
        'planted-error',
        '<!doctype html><html lang="en"><head><title>t</title></head><body><script>null.x</script></body></html>',
      );
      expect(view.errors).toHaveLength(1);
    });
  });
});
