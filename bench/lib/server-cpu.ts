/**
 * The CPU a local PostgreSQL server has used, read from /proc: the sum of
 * user and system time of every process named `postgres` (the postmaster,
 * its background workers and the backends of every connection). Two reads
 * around a timed phase give the server's CPU in it, as long as the
 * connections that did the work are still open at the second read (a
 * backend's time leaves the sum when it exits). Null where /proc is not
 * there, or the server is on another host.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux builds). */
const TICKS_PER_S = 100;

export function serverCpuMs(url: string): number | null {
  const host = new URL(url).hostname;
  if (process.platform !== 'linux' || !['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) return null;
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return (ticks * 1000) / TICKS_PER_S;
}
