/**
 * The HTML report (`-o html`) as a reader uses it in the browser: its filters set by real input (clicks,
 * key presses, a choice in a list), and what the page then shows, read back from its DOM; the focus
 * order of the Tab key; the time an opening or a filter takes, measured inside the page.
 */
import type { Page } from 'puppeteer-core';

// The little of the DOM the functions that run in the page touch. The project's TypeScript has no DOM
// library (nothing in src/ runs in a browser), so it is declared here, for this file only.
interface PageElement {
  readonly tagName: string;
  readonly id: string;
  readonly textContent: string | null;
  readonly hidden: boolean;
  readonly dataset: Readonly<Record<string, string | undefined>>;
  readonly cells: ArrayLike<PageElement>;
  readonly lastElementChild: PageElement | null;
  value: string;
  checked: boolean;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  closest(selector: string): PageElement | null;
  querySelector(selector: string): PageElement | null;
  click(): void;
  dispatchEvent(event: Event): boolean;
}
declare const document: {
  readonly activeElement: PageElement | null;
  readonly body: PageElement;
  getElementById(id: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
};
declare function requestAnimationFrame(callback: () => void): number;

/** What the page shows once filtered. */
export interface Shown {
  /** The live count's text (`Showing 3 of 10 findings`). */
  readonly count: string;
  /** The rows not hidden, as `CODE resource`, in page order. */
  readonly rows: readonly string[];
  /** The groups not hidden, as their summary's text (`CacheBackendHealth (2 of 3)`). */
  readonly groups: readonly string[];
  /** The ids of the sections not hidden (`fail`, …, `suppressed`). */
  readonly sections: readonly string[];
}

/** What the report shows now. */
export function shown(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const visible = (selector: string) => Array.from(document.querySelectorAll(selector)).filter((el) => !el.hidden);
    return {
      count: document.getElementById('shown')?.textContent ?? '',
      rows: visible('tr[data-status]').map((tr) => {
        const code = tr.cells[0]?.lastElementChild?.textContent ?? '';
        return `${code} ${tr.cells[1]?.textContent ?? ''}`.trim();
      }),
      groups: visible('details.group').map((d) => (d.querySelector('summary')?.textContent ?? '').replace(/\s+/g, ' ').trim()),
      sections: visible('section.status').map((s) => s.id),
    };
  });
}

/** Filters to set; a field left out stays as it is. */
export interface Filters {
  /** The statuses ticked (the others are not). */
  readonly statuses?: readonly string[];
  readonly suppressed?: boolean;
  /** A check's name, or '' for all checks. */
  readonly check?: string;
  /** A namespace, '' for all, or null for findings about no namespace. */
  readonly namespace?: string | null;
  readonly text?: string;
}

/** Waits until the page has applied every filter change (typing is applied after a pause). */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => document.getElementById('shown')?.hasAttribute('aria-busy') === false, { timeout: 60_000 });
}

/** Sets `filters` as a reader would (clicks, choices, typing), and waits until the page has applied them. */
export async function setFilters(page: Page, filters: Filters): Promise<void> {
  if (filters.statuses !== undefined) {
    const boxes = await page.$$eval('input[name="status"]', (els) => els.map((el) => [el.value, el.checked] as const));
    for (const [status, checked] of boxes) {
      if (checked !== filters.statuses.includes(status)) await page.click(`input[name="status"][value="${status}"]`);
    }
  }
  if (filters.suppressed !== undefined) {
    const checked = await page.$eval('#f-suppressed', (el) => el.checked);
    if (checked !== filters.suppressed) await page.click('#f-suppressed');
  }
  if (filters.check !== undefined) await page.select('#f-check', filters.check === '' ? '' : `=${filters.check}`);
  if (filters.namespace !== undefined) {
    await page.select('#f-namespace', filters.namespace === null ? '-' : filters.namespace === '' ? '' : `=${filters.namespace}`);
  }
  if (filters.text !== undefined) {
    await page.click('#f-text', { count: 3 });
    await page.keyboard.press('Backspace');
    if (filters.text !== '') await page.keyboard.type(filters.text);
  }
  await settled(page);
}

/** Presses the "Clear filters" button and waits until the page has applied it. */
export async function clearFilters(page: Page): Promise<void> {
  await page.click('#f-clear');
  await settled(page);
}

/**
 * Where the focus goes, from the top of the page, at each press of Tab, until it leaves the page or
 * comes back round: each element as `tag#id`, `input:STATUS` for a status box, `summary:text` for a
 * group, `a:href` for a link.
 */
export async function focusOrder(page: Page, limit: number): Promise<string[]> {
  await page.evaluate(() => (document.activeElement as { blur?: () => void } | null)?.blur?.());
  const order: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const here = await page.evaluate(() => {
      const el = document.activeElement;
      if (el === null || el === document.body) return '';
      const tag = el.tagName.toLowerCase();
      if (tag === 'summary') return `summary:${(el.textContent ?? '').replace(/\s+/g, ' ').trim()}`;
      if (tag === 'a') return `a:${el.getAttribute('href') ?? ''}`;
      if (tag === 'input' && el.getAttribute('name') === 'status') return `input:${el.value}`;
      return `${tag}#${el.id}`;
    });
    if (here === '' || here === order[0]) break;
    order.push(here);
  }
  return order;
}

/** Every element of the page a reader should reach with Tab: the filter controls and every group's summary, in page order. */
export function controls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('#filters input, #filters select, #filters button, details.group > summary')).map((el) => {
      const tag = el.tagName.toLowerCase();
      if (tag === 'summary') return `summary:${(el.textContent ?? '').replace(/\s+/g, ' ').trim()}`;
      if (tag === 'input' && el.getAttribute('name') === 'status') return `input:${el.value}`;
      return `${tag}#${el.id}`;
    }),
  );
}

/**
 * Milliseconds from the start of the navigation to the first frame drawn after the load event: the
 * time a reader waits for the report to open (and, with the script run, be ready to filter).
 */
export function openedAfterMs(page: Page): Promise<number> {
  return page.evaluate(async () => {
    await new Promise<void>((r) => requestAnimationFrame(() => r()));
    await new Promise<void>((r) => requestAnimationFrame(() => r()));
    return performance.now();
  });
}

/** A filter change made inside the page, to be timed there: no round trip of the test's protocol in the figure. */
export type TimedChange =
  | { readonly kind: 'status'; readonly status: string }
  | { readonly kind: 'check' | 'namespace'; readonly value: string }
  | { readonly kind: 'text'; readonly text: string };

/**
 * Milliseconds from a filter change (a status box clicked, a choice made, text entered) until the page
 * has applied it and drawn the next frame; text includes the page's pause for typing.
 */
export function timeChange(page: Page, change: TimedChange): Promise<number> {
  return page.evaluate(async (c: TimedChange) => {
    const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));
    const out = document.getElementById('shown');
    const start = performance.now();
    switch (c.kind) {
      case 'status':
        Array.from(document.querySelectorAll('input[name="status"]'))
          .find((el) => el.value === c.status)
          ?.click();
        break;
      case 'check':
      case 'namespace': {
        const select = document.getElementById(c.kind === 'check' ? 'f-check' : 'f-namespace');
        if (select === null) throw new Error('no select');
        select.value = c.value;
        select.dispatchEvent(new Event('change', { bubbles: true }));
        break;
      }
      case 'text': {
        const input = document.getElementById('f-text');
        if (input === null) throw new Error('no text input');
        input.value = c.text;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        break;
      }
    }
    while (out?.hasAttribute('aria-busy') === true) await frame();
    await frame();
    await frame();
    return performance.now() - start;
  }, change);
}
