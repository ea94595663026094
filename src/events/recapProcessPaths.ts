// recap's daemon as a folder of /proc: its open files (`/proc/<pid>/fd/N` is the event log
// itself, to read or to truncate), its memory, its environment, its folders. No tool of the
// agent may reach into it, whatever it would find there.
import { normalize } from 'node:path/posix';
import { segmentMatches } from './glob.js';

const PROC = /^\/proc\/([^/]+)(?:\/|$)/;
const GLOB = /[*?[]/;

/**
 * The first of `paths` (relative ones from `cwd`) that lies under /proc/<pid> of one of recap's
 * pids, its pid spelled with zeros in front or matched by a glob (`/proc/*\/fd/*`); else the
 * first such path spelled anywhere in `text` (code handed to an interpreter).
 */
export function recapProcessPath(paths: readonly string[], pids: readonly number[] | undefined, cwd: string | undefined, text = ''): string | undefined {
  if (pids === undefined || pids.length === 0) return undefined;
  for (const path of paths) {
    // Most paths never name /proc: every check comes here, and is spared the normalizing.
    if (!path.includes('proc') && !(cwd ?? '/').startsWith('/proc')) continue;
    const full = normalize(path.startsWith('/') ? path : `${cwd ?? '/'}/${path}`);
    const segment = PROC.exec(full)?.[1];
    if (segment !== undefined && pids.some((pid) => namesPid(segment, pid))) return full;
  }
  return new RegExp(`/proc/+0*(?:${pids.join('|')})(?![0-9])[^\\s'"]*`).exec(text)?.[0];
}

function namesPid(segment: string, pid: number): boolean {
  if (/^\d+$/.test(segment)) return Number(segment) === pid;
  return GLOB.test(segment) && segmentMatches(segment, String(pid));
}

/**
 * The first of `paths` that goes on below an open file descriptor, as if it were a folder
 * (`/dev/fd/3/data/log` after `3<..`): which folder it is, only the shell that opened it knows.
 */
export function belowDescriptor(paths: readonly string[], cwd: string | undefined): string | undefined {
  for (const path of paths) {
    if (!path.includes('fd')) continue;
    const full = normalize(path.startsWith('/') ? path : `${cwd ?? '/'}/${path}`);
    if (BELOW_FD.test(full)) return full;
  }
  return undefined;
}

const BELOW_FD = /^\/(?:dev\/fd|proc\/[^/]+(?:\/task\/[^/]+)?\/fd)\/[^/]+\/./;
