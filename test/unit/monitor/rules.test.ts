/**
 * The alert rules (chart/files/prometheus-rules.yaml): promtool checks them and runs their unit tests
 * (test/prometheus/rules.test.yaml); every alert is tested both firing and quiet, and has its runbook
 * in docs/monitor.md, where its runbook_url points.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../../dev/paths.ts';
import { promtool, promtoolMissing } from '../../support/prometheus/promtool.ts';

const RULES = join(PROJECT_ROOT, 'chart/files/prometheus-rules.yaml');
const TESTS = join(PROJECT_ROOT, 'test/prometheus/rules.test.yaml');

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: string };
  annotations: { summary: string; description: string; runbook_url: string };
}
interface AlertTest {
  alertname: string;
  exp_alerts: unknown[];
}

const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
const tests = (parse(readFileSync(TESTS, 'utf8')) as { tests: { alert_rule_test: AlertTest[] }[] }).tests.flatMap((t) => t.alert_rule_test);

describe('the alert rules', () => {
  it.each(rules.map((r) => [r.alert, r] as const))('%s is tested firing and quiet', (alert) => {
    const mine = tests.filter((t) => t.alertname === alert);
    expect(mine.some((t) => t.exp_alerts.length > 0)).toBe(true);
    expect(mine.some((t) => t.exp_alerts.length === 0)).toBe(true);
  });

  it.each(rules.map((r) => [r.alert, r] as const))('%s has a severity, a text, and its runbook in docs/monitor.md', (alert, rule) => {
    expect(['warning', 'critical']).toContain(rule.labels.severity);
    expect(rule.annotations.summary).not.toBe('');
    const anchor = alert.toLowerCase();
    expect(rule.annotations.runbook_url).toBe(
      `https://github.com/inference-cache/inferencecache-doctor/blob/main/docs/monitor.md#${anchor}`,
    );
    const page = readFileSync(join(PROJECT_ROOT, 'docs/monitor.md'), 'utf8');
    expect(page).toContain(`<a id="${anchor}"></a>`);
  });

  const missing = promtoolMissing();
  describe.skipIf(missing !== '')(`with promtool${missing === '' ? '' : ` (skipped: ${missing})`}`, () => {
    it('promtool check rules passes them', () => {
      const { code, output } = promtool(['check', 'rules', RULES]);
      expect(output).toContain(`SUCCESS: ${rules.length} rules found`);
      expect(code).toBe(0);
    });
    it('promtool test rules passes their unit tests', () => {
      const { code, output } = promtool(['test', 'rules', TESTS]);
      expect(output).toContain('SUCCESS');
      expect(code).toBe(0);
    });
  });
});
