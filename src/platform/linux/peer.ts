// Which processes are at the other end of a Unix socket connection, as Linux tells it.
// Node does not expose SO_PEERCRED, and a native module would need a compiler and an install
// script on the user's machine; iproute2's `ss` asks the kernel's sock_diag for every Unix
// connection's peer and the processes holding each end, which is all recap needs. It costs
// about 13 ms, so it is asked only for the user's commands, never on the hook's path.
import { children } from '../children.js';
// fs.promises is read when called: see linux.ts.
import { existsSync, promises as fs } from 'node:fs';
import { PeerUnknown } from '../platform.js';
import { AMBIGUOUS, parseSs } from './ssOutput.js';

/** By absolute path: a `ss` put early on PATH must not answer for the kernel. */
const SS_PATHS = ['/usr/bin/ss', '/bin/ss', '/usr/sbin/ss', '/sbin/ss'];
const SS_TIMEOUT_MS = 3000;

/** The pids holding the other end of the socket on `fd`. Throws PeerUnknown when the kernel cannot be asked, or its answer cannot be trusted. */
export async function linuxPeerPids(fd: number): Promise<number[]> {
  const link = await fs.readlink(`/proc/self/fd/${fd}`).catch(() => '');
  const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
  if (inode === undefined) throw new PeerUnknown(`descriptor ${fd} is not a socket (${link || 'unreadable'})`);
  const table = parseSs(await runSs());
  const own = table.get(inode);
  if (own === AMBIGUOUS) throw new PeerUnknown(`the kernel's list names socket ${inode} twice: a process name or path built to confuse it`);
  const peer = own?.peer;
  if (peer === undefined) throw new PeerUnknown(`the kernel lists no peer for socket ${inode}`);
  const row = table.get(peer);
  if (row === AMBIGUOUS || row?.pids === undefined)
    throw new PeerUnknown(`the processes holding socket ${peer} cannot be read from the kernel's list (a process name or path built to confuse it)`);
  if (row.pids.length === 0) throw new PeerUnknown(`no process holds the other end (socket ${peer})`);
  // The names ss prints are the processes' own (any bytes a process gives itself): each pid
  // read from them must really hold the socket, as its descriptors in /proc say.
  const pretender = await firstPretender(row.pids, peer);
  if (pretender !== undefined) throw new PeerUnknown(`process ${pretender} is listed at the other end (socket ${peer}) but holds no such socket`);
  return row.pids;
}

/** The first of `pids` with no descriptor on socket `inode`, if any. */
async function firstPretender(pids: readonly number[], inode: string): Promise<number | undefined> {
  const target = `socket:[${inode}]`;
  for (const pid of pids) {
    const fds = await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    const links = await Promise.all(fds.map((fd) => fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
    if (!links.includes(target)) return pid;
  }
  return undefined;
}

function runSs(): Promise<string> {
  const ss = SS_PATHS.find((path) => existsSync(path));
  if (ss === undefined) return Promise.reject(new PeerUnknown('iproute2 is not installed (no ss in /usr/bin, /bin, /usr/sbin or /sbin)'));
  return new Promise((resolve, reject) => {
    children().execFile(ss, ['-xpnH'], { timeout: SS_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, env: {} }, (error, stdout) => {
      if (error) reject(new PeerUnknown(`ss failed: ${error.message}`));
      else resolve(stdout);
    });
  });
}
