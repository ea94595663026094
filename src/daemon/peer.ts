// Who is at the other end of a connection to recap's socket, as the platform tells it
// (src/platform): the processes holding it, each with its ancestors. It costs a look at the
// system's socket table, so it is asked only for the user's commands, never on the hook's path.
import type { Socket } from 'node:net';
import { platform, processChain } from '../platform/choose.js';
import { PeerUnknown, type Proc } from '../platform/platform.js';

/**
 * Whether `error` says this system has no means to learn the peer (PeerUnknown's flag, read
 * as a field: a platform a test put in place brings its own copy of the class).
 */
export function unknowable(error: unknown): boolean {
  return (error as Partial<PeerUnknown> | null)?.unknowable === true;
}

/** The processes holding the other end of `socket`, each with its ancestors, it first. Throws PeerUnknown when they cannot be told. */
export async function peerChains(socket: Socket): Promise<Proc[][]> {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== 'number' || fd < 0) throw new PeerUnknown('the connection has no file descriptor');
  const pids = await platform().peerPids(fd);
  return pids.map((pid) => processChain(pid));
}
