// What macOS's ps(1) prints, read: the process table (`ps -A -ww -o pid=,ppid=,stat=,tty=,ucomm=`)
// and command lines with and without their environment (`ps -ww [-E] -o pid=,args= -p …`).
// Pure: macos.ts runs ps. A process's name and arguments are bytes it chose, so a pid listed
// twice (a line forged by a line break) is AMBIGUOUS and tells nothing.

/** A pid whose line appears twice: nothing of it can be trusted. */
export const AMBIGUOUS = Symbol('ambiguous');

/** One row of the process table. `leader`: its STAT has `s`, it leads its session. */
export type PsRow = { pid: number; ppid: number; state: string; leader: boolean; tty: string | undefined; comm: string };

const ROW = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s(.*)$/;

/** `ps -o pid=,ppid=,stat=,tty=,ucomm=`: the name last, since it may hold spaces. */
export function parsePsTable(output: string): Map<number, PsRow | typeof AMBIGUOUS> {
  const table = new Map<number, PsRow | typeof AMBIGUOUS>();
  for (const line of output.split('\n')) {
    const m = ROW.exec(line);
    if (m === null) continue;
    const pid = Number(m[1]);
    const stat = m[3]!;
    const row: PsRow = { pid, ppid: Number(m[2]), state: stat[0]!, leader: stat.includes('s'), tty: terminal(m[4]!), comm: m[5]!.trim() };
    table.set(pid, table.has(pid) ? AMBIGUOUS : row);
  }
  return table;
}

/** ps writes `??` (macOS) or `?` (procps) for no controlling terminal. */
function terminal(tty: string): string | undefined {
  return /^[?-]+$/.test(tty) ? undefined : tty;
}

/** `ps -o pid=,args=` lines: each pid's command line as ps shows it (its words joined by spaces). */
export function parsePsArgs(output: string): Map<number, string | typeof AMBIGUOUS> {
  const lines = new Map<number, string | typeof AMBIGUOUS>();
  for (const line of output.split('\n')) {
    const m = /^\s*(\d+) (.*)$/.exec(line);
    if (m === null) continue;
    const pid = Number(m[1]);
    lines.set(pid, lines.has(pid) ? AMBIGUOUS : m[2]!.replace(/^\s+/, ''));
  }
  return lines;
}

/**
 * The environment from `ps -E`'s line, given the same process's line without -E: ps adds
 * each `NAME=value` after the arguments, joined by spaces, so a value with a space in it
 * cannot be told from the next variable. The names found are those a word starts with;
 * a value that spells ` NAME=` adds a name that is not set, never hides one that is.
 * Undefined when the two lines do not agree (the process changed between the two looks).
 */
export function environmentOf(args: string, withEnvironment: string): Map<string, string> | undefined {
  if (withEnvironment === args) return new Map();
  if (!withEnvironment.startsWith(`${args} `)) return undefined;
  const env = new Map<string, string>();
  let last: string | undefined;
  for (const word of withEnvironment.slice(args.length + 1).split(' ')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word);
    if (m !== null) {
      last = m[1]!;
      if (!env.has(last)) env.set(last, m[2]!);
    } else if (last !== undefined) env.set(last, `${env.get(last)} ${word}`);
  }
  return env;
}
