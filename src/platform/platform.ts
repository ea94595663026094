// Everything recap asks of the operating system, as one interface: a process (parent, name,
// command line, environment, terminal, session), the processes at the other end of a Unix
// socket, who holds a file's lock, where a descriptor points, how to open a browser. Linux
// (linux.ts) and macOS (macos.ts) answer it by their own means; nothing outside src/platform
// reads /proc or runs ps, lsof or ss. A fact a platform cannot learn is undefined (or a
// PeerUnknown that says so), and the rule that needs it says so and takes the strict side.
import type { Proc } from '../events/caller.js';

export type { Proc };

export type PlatformName = 'linux' | 'macos' | 'fake-macos' | 'unsupported';

export type Platform = {
  readonly name: PlatformName;
  /** A process and its ancestors, it first, up to (not including) pid 0; at most `limit`. Empty when it is gone or cannot be read. */
  chain(from: number, limit: number): Proc[];
  /** The pids holding the other end of the socket on descriptor `fd`; throws PeerUnknown when they cannot be told. */
  peerPids(fd: number): Promise<number[]>;
  /** The process holding a POSIX lock on `file`: null when none does, undefined where the system does not say. */
  lockHolder(file: string): number | null | undefined;
  /** Where this process's descriptor `fd` leads (a path), undefined where the system does not say. */
  openedAt(fd: number): Promise<string | undefined>;
  /** The same, for start-up code that cannot wait. */
  openedAtSync(fd: number): string | undefined;
  /** This process's threads' ids beside its pid (a signal to any of them reaches the process); empty where the system does not say. */
  ownThreads(): number[];
  /** The program that opens a URL in the user's browser. */
  readonly browserOpener: string;
  /** Shows `text` to the user where an agent's programs do not read it (a notification); false where the system has no such place. */
  tellUser(text: string): Promise<boolean>;
};

/**
 * The peer of a connection could not be told. `unknowable`: this platform has no means to
 * learn it at all (not a failure, not a confusing answer), so a rule may ask the user instead
 * of refusing; any other PeerUnknown is a refusal.
 */
export class PeerUnknown extends Error {
  constructor(
    message: string,
    readonly unknowable = false,
  ) {
    super(message);
  }
}
