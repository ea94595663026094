// Why the event log could not be opened, read or written: the errors EventStore throws that
// the daemon tells its users.
import { LOG_FORMAT } from './logKeys.js';

export class LogLocked extends Error {
  constructor(readonly path: string) {
    super(`another recap daemon is using ${path}`);
  }
}

/** The log cannot be opened: a read-only or full disk, or damaged files. */
export class LogUnreadable extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(
      `the event log at ${path} cannot be opened (${reason}); check that its folder is writable and the disk has room, ` +
        'or, if its files are damaged, move the folder aside and recap import an export',
    );
  }
}

/**
 * LevelDB failed to write or read: the one kind of failure that may be reported as "the
 * event log could not be written". Level's own errors carry a LEVEL_* code.
 */
export class StorageFailed extends Error {
  constructor(cause: Error) {
    super(cause.message, { cause });
  }

  static is(error: unknown): boolean {
    return error instanceof StorageFailed || /^LEVEL_/.test(String((error as { code?: unknown } | null)?.code ?? ''));
  }
}

/** The log was written by a newer recap, in a format this one does not know (it would miss events). */
export class LogTooNew extends LogUnreadable {
  constructor(path: string, format: number | undefined) {
    super(path, '');
    this.message =
      `the event log at ${path} was written by a newer recap (log format ${format ?? 'unreadable'}; this recap reads up to ${LOG_FORMAT}): ` + 'upgrade recap, and start it again';
  }
}
