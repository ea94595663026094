// Who holds a POSIX lock on a file, as /proc/locks tells it.
import { readFileSync, statSync } from 'node:fs';

/** The process holding a POSIX lock on `file`; null when nobody does (or no such file); undefined where /proc/locks cannot be read. */
export function linuxLockHolder(file: string): number | null | undefined {
  let locks: string;
  let inode: number;
  let device: string;
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  try {
    const stat = statSync(file);
    inode = stat.ino;
    // /proc/locks names the device as major:minor in hex (Linux's dev_t encoding).
    const major = (stat.dev >> 8) & 0xfff;
    const minor = (stat.dev & 0xff) | ((stat.dev >> 12) & 0xfff00);
    device = `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
  } catch {
    return null;
  }
  for (const line of locks.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // "1: POSIX  ADVISORY  WRITE 12345 fe:00:2154760 0 EOF" (blocked waiters start "1: ->").
    if (fields[1] !== 'POSIX' || fields[5] !== `${device}:${inode}`) continue;
    const pid = Number(fields[4]);
    if (Number.isSafeInteger(pid) && pid > 0) return pid;
  }
  return null;
}
