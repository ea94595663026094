// Linux: processes, descriptors and locks from /proc, a socket's peer from ss and /proc.
// fs.promises is read when called, not imported: node:fs/promises loads eight more of Node's
// own modules (readline, fs/dir, the watchers), which recap-hook, that loads this file, never needs.
import { promises as fs, readdirSync, readlinkSync } from 'node:fs';
import { linuxLockHolder } from './linux/locks.js';
import { linuxPeerPids } from './linux/peer.js';
import { linuxChain } from './linux/processes.js';
import type { Platform } from './platform.js';

export const linux: Platform = {
  name: 'linux',
  chain: linuxChain,
  peerPids: linuxPeerPids,
  lockHolder: linuxLockHolder,
  openedAt: (fd) => fs.readlink(`/proc/self/fd/${fd}`).catch(() => undefined),
  openedAtSync: (fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return undefined;
    }
  },
  ownThreads: () => {
    try {
      return readdirSync('/proc/self/task')
        .map(Number)
        .filter((tid) => tid !== process.pid);
    } catch {
      return [];
    }
  },
  browserOpener: 'xdg-open',
  // Never needed: Linux tells every caller, so nothing is confirmed out of band.
  tellUser: () => Promise.resolve(false),
};
