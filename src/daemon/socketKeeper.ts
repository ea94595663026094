// Keeps a socket path the daemon's own. The path is judged by the file that is there, not by
// whether one is: a process that renames its own socket over recap's (the daemon would go
// on answering nobody while it answers every hook) is noticed at once, and the daemon puts a
// socket of its own back, atomically (bound beside it, then renamed over it), and says so. A
// deleted file is made again the same way. The folder is the daemon's too: a folder put in
// its place (one the daemon cannot bind in, 0500) is moved aside and made again.
import { chmodSync, lstatSync, mkdirSync, renameSync, unlinkSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { UserError } from '../common/errors.js';

/** Listens on a new socket at `path` (the owner makes the server; the keeper puts it in place). */
export type Bind = (path: string) => Promise<void>;

const CHECK_EVERY_MS = 1000;
/** The longest path a Unix socket may have, its final NUL left out: longer ones are cut short by the kernel's structure, silently. */
const SOCKET_PATH_MAX = process.platform === 'darwin' ? 103 : 107;
/** What the name bound beside the path adds to it: `.` before, `.` and 16 hex digits after. */
const ASIDE_EXTRA = 18;

/** A socket path too long to bind: a cut one would be another file, in another folder. */
export class SocketPathTooLong extends UserError {}

export class SocketKeeper {
  private inode: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private watcher: FSWatcher | undefined;
  private rebinding = false;
  private closed = false;
  /** What was at the path when putting the socket back failed: not tried again until that changes. */
  private failedOn: number | undefined | null = null;

  constructor(
    private readonly path: string,
    private readonly bind: Bind,
    private readonly log: Logger,
    private readonly what: string,
    /** Told when the path held a socket that was not the daemon's: someone took it over. */
    private readonly takenOver: (path: string) => void = () => undefined,
  ) {}

  /** Binds the path (folder 0700, socket 0600) and keeps it. */
  async start(): Promise<void> {
    const bytes = Buffer.byteLength(this.path) + ASIDE_EXTRA;
    if (bytes > SOCKET_PATH_MAX) {
      throw new SocketPathTooLong(
        `${this.what} ${this.path} is too long for a Unix socket (${bytes - ASIDE_EXTRA} bytes; at most ${SOCKET_PATH_MAX - ASIDE_EXTRA} here, as the daemon binds it under a longer name first): set a shorter XDG_RUNTIME_DIR, or RECAP_SOCKET`,
      );
    }
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    ownFolders.set(dirname(this.path), inodeAt(dirname(this.path)));
    await this.put();
    this.timer = setInterval(() => this.check(), CHECK_EVERY_MS);
    this.timer.unref();
    try {
      this.watcher = fsWatch(dirname(this.path), () => this.check());
      this.watcher.on('error', () => undefined);
      this.watcher.unref();
    } catch {
      // The interval alone will notice.
    }
  }

  /** Binds beside the path, then renames over it: there is never a moment with no socket, or another's. */
  private async put(): Promise<void> {
    reclaimFolder(dirname(this.path), this.log);
    // A name no other process can guess and take first (a file planted there would keep the daemon from binding).
    const aside = join(dirname(this.path), `.${basename(this.path)}.${randomBytes(8).toString('hex')}`);
    const previous = process.umask(0o177);
    try {
      await this.bind(aside);
    } finally {
      process.umask(previous);
    }
    try {
      chmodSync(aside, 0o600);
      renameSync(aside, this.path);
    } catch (error) {
      // Nothing left beside the path (its server answers no one once the file is gone).
      rmSocket(aside);
      throw error;
    }
    this.inode = lstatSync(this.path).ino;
  }

  /** The path still holds the socket the daemon bound; if not, the daemon's goes back. */
  check(): void {
    if (this.closed || this.rebinding || this.inode === undefined) return;
    const now = inodeAt(this.path);
    const folderMoved = inodeAt(dirname(this.path)) !== ownFolders.get(dirname(this.path));
    if (!folderMoved && (now === this.inode || now === this.failedOn)) return;
    const replaced = now !== undefined;
    this.rebinding = true;
    if (replaced) this.takenOver(this.path);
    this.put()
      .then(() =>
        replaced
          ? this.log.error({ socket: this.path }, `${this.what} was replaced by a file that is not the daemon's (a process took it over); the daemon's socket is back in its place`)
          : this.log.warn({ socket: this.path }, `${this.what} was deleted; listening on it again`),
      )
      .then(() => (this.failedOn = null))
      .catch((error: unknown) => {
        // Not tried again while the same file is there (a folder no socket can be renamed
        // over); a folder moved in over the daemon's is taken back whatever it holds.
        this.failedOn = now;
        this.log.error({ err: error, socket: this.path }, `${this.what} could not be made again`);
      })
      .finally(() => (this.rebinding = false));
  }

  /** Stops keeping the path, and removes the socket if it is still the daemon's. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.watcher?.close();
    if (this.inode !== undefined && inodeAt(this.path) === this.inode) rmSocket(this.path);
  }
}

/** The socket folders this daemon made, by inode: shared by the keepers of the sockets in one folder. */
const ownFolders = new Map<string, number | undefined>();

/**
 * The folder at `folder` is the one this daemon made; if another is there (moved in over it,
 * perhaps one the daemon cannot write), it is moved aside, kept for the user to look at, and
 * the daemon's made again (0700).
 */
function reclaimFolder(folder: string, log: Logger): void {
  const now = inodeAt(folder);
  if (now !== undefined && now === ownFolders.get(folder)) return;
  if (now !== undefined) {
    const aside = `${folder}.taken-${randomBytes(6).toString('hex')}`;
    renameSync(folder, aside);
    log.error({ folder, aside }, `recap's socket folder was replaced by another process's; moved aside to ${aside} and made again`);
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  ownFolders.set(folder, inodeAt(folder));
}

function inodeAt(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

function rmSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // Nothing there.
  }
}
