// A system recap has no means for (Windows' own Node): it learns nothing, so every rule that
// needs a fact takes its strict side or asks the user. recap doctor says what recap needs.
import { PeerUnknown, type Platform } from './platform.js';

export const unsupported: Platform = {
  name: 'unsupported',
  chain: () => [],
  peerPids: () => Promise.reject(new PeerUnknown(`recap cannot ask ${process.platform} who is at the other end of its socket`, true)),
  lockHolder: () => undefined,
  openedAt: () => Promise.resolve(undefined),
  openedAtSync: () => undefined,
  ownThreads: () => [],
  browserOpener: process.platform === 'win32' ? 'explorer' : 'xdg-open',
  tellUser: () => Promise.resolve(false),
};
