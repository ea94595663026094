// Which process is the daemon of a data folder, whatever socket it listens on: the pid file
// it writes once it holds the event log's lock (its PID, socket and version), checked
// against the lock itself where the system shows it (src/platform), so a file left by a daemon
// that died never names a live stranger, and a daemon of an older recap that wrote no file
// is still found. Node built-ins only: the CLI reads it before it would start a daemon.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { platform } from '../platform/choose.js';
import { dataDir, eventLogDir } from './paths.js';
import { writeWhole } from './wholeFile.js';

type Env = NodeJS.ProcessEnv;

/** What the daemon says of itself in its pid file. */
export type DaemonRecord = { pid: number; socket: string; version: string; started: number };
/** The daemon holding a data folder's log: its record, or only its PID when it wrote none. */
export type Holder = { pid: number; record?: DaemonRecord };

export function pidFile(env: Env = process.env): string {
  return join(dataDir(env), 'recapd.pid');
}

/** Written whole or not at all (a reader never sees half a file), 0600. */
export function writePidFile(record: DaemonRecord, env: Env = process.env): void {
  const file = pidFile(env);
  writeWhole(file, `${JSON.stringify(record)}\n`, { mode: 0o600, temporary: `${file}.${record.pid}.tmp` });
}

/** Removes the pid file if it is still this process's (a daemon that took over wrote its own). */
export function removePidFile(pid: number, env: Env = process.env): void {
  if (readPidFile(env)?.pid === pid) rmSync(pidFile(env), { force: true });
}

export function readPidFile(env: Env = process.env): DaemonRecord | undefined {
  try {
    const value = JSON.parse(readFileSync(pidFile(env), 'utf8')) as Partial<DaemonRecord>;
    if (!Number.isSafeInteger(value.pid) || typeof value.socket !== 'string') return undefined;
    return { pid: value.pid!, socket: value.socket, version: String(value.version ?? 'unknown'), started: Number(value.started ?? 0) };
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The process holding the LevelDB lock of `logDir` (LevelDB takes a POSIX lock on its LOCK
 * file); null when nobody holds it; undefined where the system does not say.
 */
export function lockHolder(logDir: string): number | null | undefined {
  return platform().lockHolder(join(logDir, 'LOCK'));
}

/**
 * The daemon running on this data folder, if any: the lock's holder where the system shows
 * it, else the pid file's process if it is alive.
 */
export function runningDaemon(env: Env = process.env): Holder | undefined {
  const record = readPidFile(env);
  const holder = lockHolder(eventLogDir(env));
  if (holder === null) return undefined;
  if (holder !== undefined) return record?.pid === holder ? { pid: holder, record } : { pid: holder };
  return record && isAlive(record.pid) ? { pid: record.pid, record } : undefined;
}

/** One line about a daemon for messages: PID, version, socket. */
export function describeHolder(holder: Holder): string {
  const { record } = holder;
  if (!record) return `PID ${holder.pid}, which wrote no pid file: a recap import, or the daemon of an older recap`;
  return `PID ${holder.pid}, recap ${record.version}, listening on ${record.socket}`;
}
