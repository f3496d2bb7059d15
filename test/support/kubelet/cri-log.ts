/**
 * Container logs in the CRI format a kubelet reads (`<RFC3339Nano> <stream> <F|P> <content>`), so
 * that `timestamps`, `sinceSeconds`, `tailLines` and `stream` can be answered the way the kubelet
 * answers them. One file per container start.
 *
 * @module
 */

import * as fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export type LogStream = 'stdout' | 'stderr';

/** One log record: a full line (`partial` false) or the tail of output that ended without newline. */
export interface LogRecord {
  readonly time: string;
  readonly timeMs: number;
  readonly stream: LogStream;
  readonly partial: boolean;
  readonly content: string;
}

/** RFC 3339 with nine fractional digits, as container runtimes write it. */
function criTimestamp(at = Date.now()): string {
  return new Date(at).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/** Go's RFC3339Nano output format: trailing fractional zeros dropped. */
export function rfc3339Nano(time: string): string {
  return time.replace(/\.(\d*?)0+Z$/, (_m, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}

/** Appends a process's stdout and stderr to a CRI log file, line by line. */
export class CriLogWriter {
  readonly #out: fs.WriteStream;
  readonly #pending: Record<LogStream, string> = { stdout: '', stderr: '' };
  readonly #decoders: Record<LogStream, StringDecoder> = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };

  readonly file: string;

  constructor(file: string) {
    this.file = file;
    this.#out = fs.createWriteStream(file, { flags: 'a' });
  }

  write(stream: LogStream, chunk: Buffer): void {
    const text = this.#pending[stream] + this.#decoders[stream].write(chunk);
    const lines = text.split('\n');
    this.#pending[stream] = lines.pop() ?? '';
    const ts = criTimestamp();
    for (const line of lines) this.#out.write(`${ts} ${stream} F ${line}\n`);
  }

  /** Flushes output that ended without a newline (as a partial record) and closes the file. */
  async close(): Promise<void> {
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.#pending[stream] + this.#decoders[stream].end();
      if (rest !== '') this.#out.write(`${criTimestamp()} ${stream} P ${rest}\n`);
      this.#pending[stream] = '';
    }
    await new Promise<void>((resolve) => this.#out.end(resolve));
  }
}

/** Parses complete CRI lines; malformed lines are skipped. */
export function parseCriLines(text: string): LogRecord[] {
  const out: LogRecord[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+) (stdout|stderr) ([FP]) (.*)$/s.exec(line);
    if (m === null) continue;
    const time = m[1] ?? '';
    out.push({ time, timeMs: Date.parse(time), stream: m[2] as LogStream, partial: m[3] === 'P', content: m[4] ?? '' });
  }
  return out;
}

/** The `pods/log` options the stand-in honours. */
export interface LogQuery {
  readonly timestamps: boolean;
  readonly tailLines?: number | undefined;
  readonly sinceMs?: number | undefined;
  readonly stream?: LogStream | undefined;
}

/** Records selected by `query` (stream, since, then the last `tailLines` lines). */
export function selectRecords(records: readonly LogRecord[], query: LogQuery): LogRecord[] {
  let selected = records.filter(
    (r) => (query.stream === undefined || r.stream === query.stream) && (query.sinceMs === undefined || r.timeMs >= query.sinceMs),
  );
  if (query.tailLines !== undefined) {
    let lines = 0;
    let start = selected.length;
    while (start > 0) {
      const r = selected[start - 1];
      if (r !== undefined && !r.partial) {
        if (lines === query.tailLines) break;
        lines++;
      }
      start--;
    }
    selected = selected.slice(start);
  }
  return selected;
}

/** The text a record contributes to the answer. */
export function renderRecord(r: LogRecord, timestamps: boolean): string {
  return `${timestamps ? `${rfc3339Nano(r.time)} ` : ''}${r.content}${r.partial ? '' : '\n'}`;
}

/** The plain content of a log file (no timestamps), for the FallbackToLogsOnError message. */
export function readLogTail(file: string, lines: number, maxBytes: number): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  const rendered = Buffer.from(
    selectRecords(parseCriLines(text), { timestamps: false, tailLines: lines })
      .map((r) => renderRecord(r, false))
      .join(''),
  );
  return rendered.subarray(Math.max(0, rendered.length - maxBytes)).toString('utf8');
}
