// What lsof(8) prints with -F (field output), read: one `p<pid>` line per process, then for
// each of its files an `f<fd>` line and the fields asked for (`d` the device, which for a
// Unix socket on macOS is the kernel's address of its protocol control block; `n` the name,
// for a socket bound to nothing `->0x…`: the control block of the socket it is connected
// to). Pure: macos.ts runs lsof. lsof writes a name's unprintable bytes escaped, so a name
// cannot start a line of its own; a field line it does not know is skipped.

/** One open file of one process. */
export type LsofFile = { pid: number; fd: string; device?: string; name?: string };

export function parseLsofFields(output: string): LsofFile[] {
  const files: LsofFile[] = [];
  let pid: number | undefined;
  let file: LsofFile | undefined;
  for (const line of output.split('\n')) {
    const field = line[0];
    const value = line.slice(1);
    if (field === 'p') {
      pid = /^\d+$/.test(value) ? Number(value) : undefined;
      file = undefined;
    } else if (field === 'f' && pid !== undefined) {
      file = { pid, fd: value };
      files.push(file);
    } else if (field === 'd' && file !== undefined) file.device = value;
    else if (field === 'n' && file !== undefined) file.name = value;
  }
  return files;
}

/**
 * The pids at the other end of this process's socket on `fd`, from `lsof -U -F pfdn`: those
 * holding a socket that names ours as the one it is connected to, and those holding the
 * socket ours names. Undefined when ours is not in the list; empty when nobody holds it.
 */
export function socketPeers(files: readonly LsofFile[], self: number, fd: number): number[] | undefined {
  const own = files.find((f) => f.pid === self && f.fd === String(fd));
  if (own?.device === undefined) return undefined;
  const named = own.name?.startsWith('->0x') ? own.name.slice(2) : undefined;
  const pids = files
    .filter((f) => !(f.pid === self && f.fd === String(fd)))
    .filter((f) => f.name === `->${own.device}` || (named !== undefined && f.device === named))
    .map((f) => f.pid);
  return [...new Set(pids)];
}

/**
 * Who holds a file's lock, from `lsof -F pf -- FILE`: lsof on macOS does not show locks, and
 * LevelDB keeps its LOCK file open as long as it holds the lock, so the one process with it
 * open is taken for the holder. null when none has it open; undefined when several do (one
 * of them may be a second daemon trying): that cannot be told.
 */
export function lockHolderOf(files: readonly LsofFile[]): number | null | undefined {
  const pids = [...new Set(files.map((f) => f.pid))];
  if (pids.length === 0) return null;
  return pids.length === 1 ? pids[0] : undefined;
}
