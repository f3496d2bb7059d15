/**
 * A real browser for the tests of the HTML report: Debian's `chromium` package, headless, driven over
 * the DevTools protocol by puppeteer-core (which brings no browser of its own). Each page opened here
 * is watched for everything a self-contained, policy-bound page must never do: a request other than
 * its own file, a console message of any kind, an uncaught error, a Content Security Policy violation.
 * Absent, the suites that need it skip with the reason, never under CI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { PROJECT_ROOT } from '../../../dev/paths.ts';

/** Where Debian's `chromium` package puts the browser's launcher. */
export const CHROMIUM = '/usr/bin/chromium';

/** Where a browser test leaves what helps to understand its failure (screenshots); ignored by git. */
export const ARTEFACTS_DIR = join(PROJECT_ROOT, 'test-artefacts');

/** The skip reason, or '' when Chromium runs. Throws under CI, where it must. */
export function chromiumMissing(): string {
  const probe = existsSync(CHROMIUM) ? spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8', timeout: 30_000 }) : undefined;
  if (probe !== undefined && probe.error === undefined && probe.status === 0 && /Chromium \d+/.test(probe.stdout)) return '';
  const why =
    probe === undefined ? `${CHROMIUM} does not exist` : (probe.error?.message ?? `${CHROMIUM} --version exited ${String(probe.status)}`);
  if (process.env['CI'] === 'true') throw new Error(`Chromium must run under CI (apt-get install chromium): ${why}`);
  return `Chromium is not installed (apt-get install chromium): ${why}`;
}

/**
 * Switches that keep the browser from reaching out on its own (component updates, safe-browsing lists,
 * metrics, translation): the only network traffic of a test is then the page's, which must be none.
 * `--no-sandbox` because the tests run as root, where Chromium's sandbox refuses to start.
 */
const ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-sync',
  '--disable-extensions',
  '--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions',
  '--metrics-recording-only',
  '--no-default-browser-check',
  '--no-first-run',
  '--no-pings',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--window-size=1280,900',
];

/** A headless Chromium with a profile of its own in a fresh folder; `close` removes both. */
export interface Chromium {
  readonly browser: Browser;
  /** Opens `file` (an HTML file) and watches it; see {@link WatchedPage}. */
  open(file: string, options?: { readonly javascript?: boolean }): Promise<WatchedPage>;
  close(): Promise<void>;
}

/** A page and what it did that it must not: each list empty for a well-behaved page. */
export interface WatchedPage {
  readonly page: Page;
  /** Requests other than the page's own file (each was refused before it left). */
  readonly requests: readonly string[];
  /** Console messages of any level, as `level: text`: the report logs nothing, and the browser logs CSP refusals there. */
  readonly console: readonly string[];
  /** Uncaught errors of the page's script. */
  readonly errors: readonly string[];
  /** The CSP violations the page reported (`securitypolicyviolation` events), as `directive: blocked`. */
  violations(): Promise<string[]>;
  /** A full-page screenshot into {@link ARTEFACTS_DIR} as `<name>.png`; returns the path. */
  screenshot(name: string): Promise<string>;
}

/**
 * Listens for CSP violations from the first moment of every document. Added through the DevTools
 * protocol, so the page's own policy, which admits only its script, does not apply to it.
 */
function recordViolations(): void {
  const seen: string[] = [];
  Object.defineProperty(globalThis, '__cspViolations', { value: seen });
  (globalThis as unknown as EventTarget).addEventListener('securitypolicyviolation', (e) => {
    const v = e as unknown as { violatedDirective: string; blockedURI: string };
    seen.push(`${v.violatedDirective}: ${v.blockedURI}`);
  });
}

/** Starts Chromium; call {@link chromiumMissing} first. */
export async function startChromium(): Promise<Chromium> {
  const dir = mkdtempSync(join(tmpdir(), 'icd-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: join(dir, 'profile'),
    args: ARGS,
    defaultViewport: { width: 1280, height: 900 },
    protocolTimeout: 180_000,
  });
  const open = async (file: string, options: { readonly javascript?: boolean } = {}): Promise<WatchedPage> => {
    const page = await browser.newPage();
    const url = pathToFileURL(file).href;
    const requests: string[] = [];
    const console: string[] = [];
    const errors: string[] = [];
    await page.setJavaScriptEnabled(options.javascript ?? true);
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (req.url() === url) {
        void req.continue();
        return;
      }
      requests.push(req.url());
      void req.abort('blockedbyclient');
    });
    page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => errors.push(e instanceof Error ? e.message : String(e)));
    await page.evaluateOnNewDocument(recordViolations);
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
    return {
      page,
      requests,
      console,
      errors,
      violations: () => page.evaluate(() => [...((globalThis as unknown as { __cspViolations?: string[] }).__cspViolations ?? [])]),
      screenshot: async (name) => {
        mkdirSync(ARTEFACTS_DIR, { recursive: true });
        const path = join(ARTEFACTS_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`);
        await page.screenshot({ path, fullPage: true });
        return path;
      },
    };
  };
  return {
    browser,
    open,
    close: async () => {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
