// Runs a command with TMPDIR pointing at a fresh folder and removes that folder afterwards, so a test
// run leaves nothing behind in the system's temp folder (KEEP_TMP=1 keeps it, for logs and audit files).
//   node scripts/with-tmpdir.mjs <command> [args...]
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: node scripts/with-tmpdir.mjs <command> [args...]\n');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'inferencecache-test-'));
// Like /tmp itself: tests that run the bundle as uid 65532 must reach their folders in it.
chmodSync(dir, 0o1777);
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, TMPDIR: dir } });
const forward = (signal) => child.kill(signal);
process.on('SIGINT', forward);
process.on('SIGTERM', forward);
child.on('error', (err) => {
  process.stderr.write(`with-tmpdir: ${command}: ${err.message}\n`);
  process.exitCode = 1;
});
child.on('exit', (code, signal) => {
  if (process.env.KEEP_TMP === '1') process.stderr.write(`with-tmpdir: kept ${dir}\n`);
  else {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      process.stderr.write(`with-tmpdir: could not remove ${dir}: ${err.message}\n`);
    }
  }
  process.exit(code ?? (signal === null ? 1 : 128));
});
