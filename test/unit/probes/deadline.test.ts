import { describe, expect, it } from 'vitest';
import { abortMessage, startBudget, timeoutMessage } from '../../../src/probes/deadline.ts';
import { describeError, oneLine, redact } from '../../../src/text/errors.ts';

describe('timeoutMessage / abortMessage', () => {
  it('words a timeout', () => {
    expect(timeoutMessage(2_000)).toBe('no answer within 2s');
  });

  it('tells a run deadline from a plain cancel', () => {
    expect(abortMessage(new DOMException('x', 'TimeoutError'))).toMatch(/overall deadline/);
    expect(abortMessage(new DOMException('x', 'AbortError'))).toBe('cancelled before an answer');
    expect(abortMessage(undefined)).toBe('cancelled before an answer');
  });
});

describe('startBudget', () => {
  it('aborts after its own time and says so', async () => {
    const budget = startBudget(50);
    expect(budget.reason()).toBeUndefined();
    await new Promise((r) => budget.signal.addEventListener('abort', r));
    expect(budget.endedBy()).toBe('timeout');
    expect(budget.reason()).toBe('no answer within 50ms');
  });

  it('aborts with the overall signal first', () => {
    const overall = new AbortController();
    const budget = startBudget(10_000, overall.signal);
    overall.abort();
    expect(budget.signal.aborted).toBe(true);
    expect(budget.endedBy()).toBe('aborted');
    expect(budget.reason()).toBe('cancelled before an answer');
    budget.dispose();
  });

  it('starts ended when the overall signal already aborted, or the budget is zero/NaN', () => {
    expect(startBudget(1_000, AbortSignal.abort()).signal.aborted).toBe(true);
    expect(startBudget(0).endedBy()).toBe('timeout');
    expect(startBudget(Number.NaN).signal.aborted).toBe(true);
  });

  it('dispose stops the timer', async () => {
    const budget = startBudget(30);
    budget.dispose();
    await new Promise((r) => setTimeout(r, 60));
    expect(budget.signal.aborted).toBe(false);
  });
});

describe('error text helpers', () => {
  it('makes one line', () => {
    expect(oneLine(' a\n  b\r\nc ')).toBe('a b c');
  });

  it('redacts secrets, trimmed or not', () => {
    expect(redact('x tok y tok', ['tok'])).toBe('x [redacted] y [redacted]');
    expect(redact('x tok y', ['tok\n'])).toBe('x [redacted] y');
    expect(redact('x', ['', undefined])).toBe('x');
  });

  it('describes aggregate errors, causes and odd values', () => {
    const agg = new AggregateError([new Error('connect ECONNREFUSED ::1:1'), new Error('connect ECONNREFUSED 127.0.0.1:1')], '');
    expect(describeError(agg)).toBe('connect ECONNREFUSED ::1:1; connect ECONNREFUSED 127.0.0.1:1');
    expect(describeError(new Error('fetch failed', { cause: new Error('other side closed') }))).toBe('fetch failed: other side closed');
    expect(describeError(Object.assign(new Error(''), { code: 'ECONNRESET' }))).toBe('ECONNRESET');
    expect(describeError('line1\nline2')).toBe('line1 line2');
    expect(describeError(undefined)).toBe('unknown error');
  });
});
