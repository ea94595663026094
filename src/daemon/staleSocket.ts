// Before listening: a socket file nobody answers on is left over from a daemon that died,
// and is removed; one that answers belongs to a live daemon, and we must not take it over.
import { lstatSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';

export class SocketInUse extends Error {}

export async function clearStaleSocket(path: string): Promise<void> {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return;
  }
  if (!stat.isSocket()) {
    throw new SocketInUse(`${path} exists and is not a socket; remove it or point RECAP_SOCKET elsewhere`);
  }
  const live = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new SocketInUse(`another recap daemon is listening on ${path}`);
  unlinkSync(path);
}
