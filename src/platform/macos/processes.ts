// A process and its ancestors as ps(1) tells them, the way macOS must (it has no /proc): the
// table for parents, names, states and terminals, then the command lines, and the same with
// their environment, of the chain's processes only. macOS tells whether a process leads its
// session, not which session it is in: `sid` is known only for a leader.
import type { Proc } from '../../events/caller.js';
import { AMBIGUOUS, environmentOf, parsePsArgs, parsePsTable, type PsRow } from './psOutput.js';

const MAX_ARGS = 4;
const MAX_ARG = 512;

/** Runs ps with these arguments and gives its output ('' when it fails). */
export type RunPs = (args: readonly string[]) => string;

/** How this system's ps shows the environment after the arguments: `-E` on macOS, `e` on procps. */
export type PsDialect = { environment: string };

export function psChain(run: RunPs, dialect: PsDialect, from: number, limit: number): Proc[] {
  const table = parsePsTable(run(['-A', '-ww', '-o', 'pid=,ppid=,stat=,tty=,ucomm=']));
  const rows: PsRow[] = [];
  for (let pid = from; pid > 0 && rows.length < limit;) {
    const row = table.get(pid);
    if (row === undefined || row === AMBIGUOUS) break;
    rows.push(row);
    pid = row.ppid;
  }
  if (rows.length === 0) return [];
  const list = rows.map((r) => r.pid).join(',');
  const args = parsePsArgs(run(['-ww', '-o', 'pid=,args=', '-p', list]));
  const withEnv = parsePsArgs(run(['-ww', dialect.environment, '-o', 'pid=,args=', '-p', list]));
  return rows.map((row) => procOf(row, args.get(row.pid), withEnv.get(row.pid)));
}

function procOf(row: PsRow, args: string | typeof AMBIGUOUS | undefined, withEnv: string | typeof AMBIGUOUS | undefined): Proc {
  const line = typeof args === 'string' ? args : undefined;
  const env = line !== undefined && typeof withEnv === 'string' ? environmentOf(line, withEnv) : undefined;
  return {
    pid: row.pid,
    ppid: row.ppid,
    comm: row.comm,
    state: row.state,
    sid: row.leader ? row.pid : undefined,
    tty: row.tty === undefined ? 0 : ttyNumber(row.tty),
    // ps joins the words with spaces: a word holding one is cut in two, as `ps` users see it.
    argv: (line ?? '')
      .split(' ')
      .filter((word) => word !== '')
      .slice(0, MAX_ARGS)
      .map((word) => word.slice(0, MAX_ARG)),
    env: env ?? new Map(),
  };
}

/** A terminal's name as a number that is never 0 (0 means none). */
function ttyNumber(name: string): number {
  let hash = 7;
  for (const char of name) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash === 0 ? 1 : hash;
}
