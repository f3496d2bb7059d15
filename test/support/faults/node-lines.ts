// Lines that Node itself writes to stderr, such as `(node:1234) [DEP0123] DeprecationWarning: ...` and
// the `(Use `node --trace-warnings ...` ...)` hint after the first one. In a pod stderr is merged into
// the log that holds the JSON report, so a run's stderr must hold none of them, whatever went wrong.
import { expect } from 'vitest';

/** The start of a line Node prints for a warning, and of the hint it prints after the first one. */
const NODE_LINE = /^\((?:node:|Use `node )/;

/** The lines of `stderr` that Node printed itself, not the doctor. */
export function nodeLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => NODE_LINE.test(line));
}

/** Fails when `stderr` holds a line Node printed itself; `what` names the run in the failure. */
export function expectNoNodeLines(stderr: string, what = 'the run'): void {
  expect(nodeLines(stderr), `stderr of ${what} holds lines Node printed itself`).toEqual([]);
}
