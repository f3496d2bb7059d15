// The HTML report of the full scale scenario of docs/architecture.md#bars, written by the bundle as an
// operator would (`doctor -f <the scenario's objects> --covers all -o html`), opened and filtered in
// Chromium, and timed there: the figures of docs/reports.md#html. The bounds only guard against a page
// that stopped being usable (a filter that takes seconds); the figures are printed for the docs.
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { FULL, expectedCounts, scenarioObjects } from '../../dev/cluster/scale-scenario.ts';
import { chromiumMissing, startChromium, type Chromium, type WatchedPage } from '../support/browser/chromium.ts';
import { openedAfterMs, shown, timeChange } from '../support/browser/report-page.ts';
import { runBundle } from '../support/bundle.ts';
import { htmlProblems } from '../support/html-report.ts';

const missing = chromiumMissing();

/** How long opening the report may take before the test calls it unusable. */
const OPEN_BOUND_MS = 15_000;
/** How long one filter change may take. */
const FILTER_BOUND_MS = 5_000;

/** Writes the scenario's objects as one JSON `List`, an object at a time. */
async function writeScenario(file: string): Promise<number> {
  const out = createWriteStream(file);
  let count = 0;
  out.write('{"apiVersion":"v1","kind":"List","items":[');
  for (const object of scenarioObjects(FULL)) {
    if (!out.write(`${count === 0 ? '' : ','}${JSON.stringify(object)}`)) await once(out, 'drain');
    count++;
  }
  out.end(']}');
  await once(out, 'finish');
  return count;
}

describe.skipIf(missing !== '')(
  `the HTML report of the full scale scenario in Chromium${missing === '' ? '' : ` (skipped: ${missing})`}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'icd-html-scale-'));
    const report = join(dir, 'report.html');
    const want = expectedCounts(FULL);
    const findings = Object.values(want).reduce((a, b) => a + b, 0);
    let chromium: Chromium;
    let html = '';

    beforeAll(async () => {
      const objects = join(dir, 'scenario.json');
      await writeScenario(objects);
      const run = await runBundle(['doctor', '-f', objects, '--covers', 'all', '-o', 'html'], { timeoutMs: 300_000 });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(1);
      html = run.stdout;
      writeFileSync(report, html);
      chromium = await startChromium();
    }, 600_000);

    afterAll(async () => {
      await chromium.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the bundle writes a page that holds only what the renderer writes, a row per finding of the scenario', () => {
      expect(htmlProblems(html)).toEqual([]);
      const codes: Record<string, number> = {};
      for (const m of html.matchAll(
        /<tr data-status="[A-Z]+" [^>]*><td class="code"><span class="s-[A-Z]+">[A-Z]+<\/span> <span>(\w+)<\/span>/g,
      ))
        codes[m[1] ?? ''] = (codes[m[1] ?? ''] ?? 0) + 1;
      expect(codes).toEqual(Object.fromEntries(Object.entries(want).filter(([, n]) => n > 0)));
    });

    it(`opens within ${OPEN_BOUND_MS / 1000} s and filters within ${FILTER_BOUND_MS / 1000} s a change`, async () => {
      const view: WatchedPage = await chromium.open(report);
      onTestFailed(async () => void (await view.screenshot('html-report-scale')));
      const opened = await openedAfterMs(view.page);
      expect((await shown(view.page)).count).toBe(`Showing ${findings} of ${findings} findings`);
      const figures: [string, number][] = [['open (navigation to the first frame after load)', opened]];
      const change = async (label: string, c: Parameters<typeof timeChange>[1], count: number) => {
        figures.push([label, await timeChange(view.page, c)]);
        expect((await shown(view.page)).count).toBe(`Showing ${count} of ${findings} findings`);
      };
      const ok = (want['CB006'] ?? 0) + (want['EP002'] ?? 0) + (want['CT002'] ?? 0) + (want['CP002'] ?? 0);
      await change('status: OK off', { kind: 'status', status: 'OK' }, findings - ok);
      await change('status: OK on', { kind: 'status', status: 'OK' }, findings);
      // Engine pods engine-1, engine-10…19, engine-100…199, engine-1000…1999 (only engine pods are named so).
      await change('text: "engine-1"', { kind: 'text', text: 'engine-1' }, 1 + 10 + 100 + 1000);
      await change('text cleared', { kind: 'text', text: '' }, findings);
      await change('check: CacheTenantHealth', { kind: 'check', value: '=CacheTenantHealth' }, (want['CT001'] ?? 0) + (want['CT002'] ?? 0));
      await change('check: all', { kind: 'check', value: '' }, findings);
      const namespaced = await view.page.$$eval('tr[data-namespace="scale-07"]', (els) => els.length);
      await change('namespace: scale-07', { kind: 'namespace', value: '=scale-07' }, namespaced);
      const size = (statSync(report).size / 1e6).toFixed(1);
      console.log(
        `HTML report of the full scale scenario (${findings} findings, ${size} MB) in Chromium:\n` +
          figures.map(([label, ms]) => `  ${label}: ${Math.round(ms)} ms`).join('\n'),
      );
      expect(opened).toBeLessThan(OPEN_BOUND_MS);
      for (const [label, ms] of figures.slice(1)) expect(ms, label).toBeLessThan(FILTER_BOUND_MS);
      expect(view.requests).toEqual([]);
      expect(view.console).toEqual([]);
      expect(view.errors).toEqual([]);
      expect(await view.violations()).toEqual([]);
    }, 300_000);
  },
);
