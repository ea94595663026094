// The verdict file: what a hook falls back on when the daemon cannot answer (stopped,
// flooded, its thread pool blocked). It lists the tripped jobs, each with the submit command
// that opens it, and the sessions bound to those jobs, so a hook that gets no answer still
// denies a tripped job's tools and still lets its way out through. It sits beside the
// socket (a 0700 folder), is 0600, and is replaced atomically (write, then rename) on every
// trip, every clear and every session bound to a tripped job, so a reader never sees half of it.
import { chmod, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';

export const VERDICT_FILE_VERSION = 1;

/**
 * A tripped job as the hook needs it: why, since when, and the exact command out; `folders`,
 * the project folders the log knows as the job's repository (a clone, a worktree, a moved
 * copy), for a session not yet bound whose folder's own path names no job.
 */
export type TrippedVerdict = { reason: string; since: number; submit: string; folders?: string[] };

/** The file's contents; the hook client reads the same shape (src/hook/fallback.ts). */
export type Verdicts = {
  version: typeof VERDICT_FILE_VERSION;
  written: number;
  tripped: Record<string, TrippedVerdict>;
  /** Session id to the job it is bound to, for the sessions of tripped jobs. */
  sessions: Record<string, string>;
};

/** The verdict file beside a socket. */
export function verdictPath(socket: string): string {
  return join(dirname(socket), 'verdicts.json');
}

export class VerdictFile {
  private readonly tripped = new Map<string, TrippedVerdict>();
  private sessions: ReadonlyMap<string, { job: string }> = new Map();
  /** The write in progress; a change during it asks for one more, never two at once. */
  private writing: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly path: string,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** A job tripped (or its verdict changed): recorded and written out. */
  trip(job: string, verdict: TrippedVerdict): Promise<void> {
    this.tripped.set(job, verdict);
    return this.save();
  }

  /** A job's gate opened. */
  clear(job: string): Promise<void> {
    if (!this.tripped.delete(job)) return Promise.resolve();
    return this.save();
  }

  /**
   * The daemon's live map of sessions to their jobs (Projection.sessions). The file lists
   * only the sessions of tripped jobs, the ones a hook must deny, so it stays small.
   */
  bindSessions(sessions: ReadonlyMap<string, { job: string }>): Promise<void> {
    this.sessions = sessions;
    return this.save();
  }

  /** A session was bound to a job: written out when that job is tripped. */
  sessionBound(job: string): Promise<void> {
    return this.tripped.has(job) ? this.save() : Promise.resolve();
  }

  private trippedSessions(): Record<string, string> {
    const listed: Record<string, string> = {};
    for (const [session, { job }] of this.sessions) if (this.tripped.has(job)) listed[session] = job;
    return listed;
  }

  /** Writes the file now (or after the write in progress); resolves once it is on disk. */
  save(): Promise<void> {
    if (this.writing) {
      this.again = true;
      return this.writing;
    }
    this.writing = this.writeLoop().finally(() => (this.writing = undefined));
    return this.writing;
  }

  private async writeLoop(): Promise<void> {
    do {
      this.again = false;
      const verdicts: Verdicts = {
        version: VERDICT_FILE_VERSION,
        written: this.now(),
        tripped: Object.fromEntries(this.tripped),
        sessions: this.trippedSessions(),
      };
      const temporary = `${this.path}.${process.pid}.tmp`;
      try {
        await writeFile(temporary, JSON.stringify(verdicts), { mode: 0o600 });
        await chmod(temporary, 0o600);
        await rename(temporary, this.path);
      } catch (error) {
        // The hooks then fall back on ON_DAEMON_DOWN alone: worth a line, not a crash.
        this.log.error({ err: error, file: this.path }, 'the verdict file could not be written');
      }
    } while (this.again);
  }
}
