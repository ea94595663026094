// What `ss -xpnH` prints, read: each Unix socket's peer and the processes holding it.
/** A socket the output lists twice: a line was forged by a name or path holding a line break. */
export const AMBIGUOUS = Symbol('ambiguous');

/** A socket's peer, and the pids holding it; no pids when its users part is not as ss writes it. */
type Row = { peer: string; pids: number[] | undefined };

/** ss's process list, whole and alone on its line: users:(("name",pid=N,fd=M),...). */
const USERS = /^users:\((\("[^"\n]*",pid=\d+,fd=\d+\))(,\("[^"\n]*",pid=\d+,fd=\d+\))*\)$/;

/**
 * `ss -xpnH` lines: netid state recv-q send-q local-address local-inode peer-address
 * peer-inode [users:(("name",pid=N,fd=M),...)]. The local address may hold spaces (a path),
 * so the inodes are found from the right of the part before users. Names and paths are any
 * bytes a process chose: a line break in one starts a line of its own making, so a socket
 * listed twice is AMBIGUOUS, and a users part that is not exactly ss's form gives no pids.
 */
export function parseSs(output: string): Map<string, Row | typeof AMBIGUOUS> {
  const table = new Map<string, Row | typeof AMBIGUOUS>();
  for (const line of output.split('\n')) {
    const at = line.indexOf(' users:(');
    const head = (at >= 0 ? line.slice(0, at) : line).trim().split(/\s+/);
    if (head.length < 8) continue;
    const peer = head[head.length - 1]!;
    const local = head[head.length - 3]!;
    if (!/^\d+$/.test(local) || !/^\d+$/.test(peer)) continue;
    const users = at >= 0 ? line.slice(at + 1).trimEnd() : undefined;
    const pids = users === undefined ? [] : USERS.test(users) ? [...users.matchAll(/",pid=(\d+),fd=\d+\)/g)].map((m) => Number(m[1])) : undefined;
    table.set(local, table.has(local) ? AMBIGUOUS : { peer, pids: pids && [...new Set(pids)] });
  }
  return table;
}
