// What Linux's /proc says of a process the tests or benchmarks started: its CPU time so far and its
// memory, for figures that must not depend on the process reporting them itself.
import { readFileSync } from 'node:fs';

/** A process's CPU time so far (user + system), from /proc: clock ticks of 10 ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process's resident memory now and at its peak so far (VmRSS, VmHWM), in MiB. */
export function processMemoryMiB(pid: number): { readonly rss: number; readonly peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const value = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    if (value === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(value) / 1024;
  };
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}
