// A platform for tests that behaves like macOS where Linux lets it: processes from ps as
// macOS reads them (sessions known only for their leaders, the environment as text run
// together), no /proc, and a socket's peer that cannot be learned (a stub: as where lsof
// cannot answer). Never chosen by recap itself: a test's launcher puts it in place
// (test/helpers/onFakeMacos.mjs), so every rule's "cannot be learned" branch runs for real.
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { psChain } from './macos/processes.js';
import { PeerUnknown, type Platform } from './platform.js';

function runPs(args: readonly string[]): string {
  try {
    return execFileSync('/usr/bin/ps', args, { encoding: 'utf8', timeout: 3000, env: {}, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

/** The fake; what it shows the user (macOS's notifications) is appended to `notices`, where the test reads it. */
export const fakeMacos = (options: { notices?: string | undefined } = {}): Platform => ({
  name: 'fake-macos',
  chain: (from, limit) => psChain(runPs, { environment: 'e' }, from, limit),
  peerPids: () => Promise.reject(new PeerUnknown('this system cannot tell which process holds the other end of a connection', true)),
  lockHolder: () => undefined,
  openedAt: () => Promise.resolve(undefined),
  openedAtSync: () => undefined,
  ownThreads: () => [],
  browserOpener: 'open',
  tellUser: (text) => {
    if (options.notices === undefined) return Promise.resolve(false);
    appendFileSync(options.notices, `${text}\n`);
    return Promise.resolve(true);
  },
});
