// A preload for process tests (`node --import <this file> <program>`; Node loads it in every thread):
// well after the program has started, when a thread first opens a network connection or first writes
// to stdout, it raises a warning and a deprecation the way Node and libraries raise them, with
// process.emitWarning. When RAISE_WARNINGS_MARK names a file, it is written once they are raised, so
// that a test can tell "nothing printed" from "nothing raised".
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

let raised = false;
function raise() {
  if (raised) return;
  raised = true;
  process.emitWarning('a warning raised inside the program', 'Warning', 'ICD_TEST_WARNING');
  process.emitWarning('a deprecation raised inside the program', 'DeprecationWarning', 'ICD_TEST_DEPRECATION');
  const mark = process.env.RAISE_WARNINGS_MARK;
  if (mark !== undefined && mark !== '') writeFileSync(mark, 'raised\n');
}

subscribe('net.client.socket', raise);
const write = process.stdout.write;
process.stdout.write = function (...args) {
  raise();
  return write.apply(this, args);
};
