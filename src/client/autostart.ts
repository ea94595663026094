// Connect to the daemon, starting it first when nobody answers (as watchman and gpg-agent
// do): detached, its log in a file under the data folder, then wait for its socket. Never a
// second daemon on a data folder: one that runs but cannot be reached here is reported.
import { closeSync, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { daemonCommand, daemonEnvironment } from '../common/daemonStart.js';
import { describeHolder, runningDaemon } from '../common/daemonRecord.js';
import { UserError } from '../common/errors.js';
import { daemonLogFile, dataDir, socketPath } from '../common/paths.js';
import { makeDataFolder, unusable } from '../common/dataFolder.js';
import { Client, DaemonUnavailable } from './socketClient.js';

export class DaemonStartFailed extends UserError {}

/** A daemon runs on this data folder, but not where this shell looks for it. */
export class DaemonUnreachable extends UserError {}

export async function connectOrStart(env: NodeJS.ProcessEnv = process.env, deadlineMs = 10_000): Promise<Client> {
  const path = socketPath(env);
  try {
    return await Client.connect(path);
  } catch (error) {
    if (!(error instanceof DaemonUnavailable)) throw error;
  }
  let why = whyUnreachable(env);
  if (why && !why.starting) throw new DaemonUnreachable(why.message);
  // A daemon that holds the log and will listen here is waited for, not doubled.
  let started = why ? undefined : await startDaemon(env);
  const deadline = Date.now() + deadlineMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    try {
      return await Client.connect(path);
    } catch (error) {
      if (!(error instanceof DaemonUnavailable)) throw error;
    }
    const code = started?.code();
    if (started && code !== undefined) {
      // Another command started one at the same moment, and it took the lock: wait for it.
      why = whyUnreachable(env);
      if (why?.starting) started = undefined;
      else {
        const said = started.said();
        throw new DaemonStartFailed(`the recap daemon exited at start (code ${code})${said ? `: ${said}` : ''}; its log is ${daemonLogFile(env)}`);
      }
    }
    if (Date.now() > deadline) {
      if (why) throw new DaemonUnreachable(why.message);
      throw new DaemonStartFailed(`the recap daemon did not open ${path} within ${deadlineMs / 1000} s; its log is ${daemonLogFile(env)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/**
 * Nobody answers on this shell's socket: whether a daemon runs on this data folder all the
 * same (found by its lock and pid file), and what to tell the user. `starting`: it holds the
 * log and says it listens on this very socket, so it may be loading its log; otherwise no
 * wait helps. Undefined when no daemon runs here: one may be started.
 */
export function whyUnreachable(env: NodeJS.ProcessEnv): { message: string; starting: boolean } | undefined {
  const path = socketPath(env);
  const taken = notASocket(path);
  if (taken) return { message: `${path} is ${taken}, not recap's socket: something else took the path; move it aside, or point RECAP_SOCKET elsewhere`, starting: false };
  const holder = runningDaemon(env);
  if (!holder) return undefined;
  const where = holder.record?.socket;
  if (where === undefined || where === path) {
    return {
      message: `the recap daemon (${describeHolder(holder)}) runs on ${dataDir(env)} but does not answer on ${path}: it is still starting, or its socket file was removed; recap restart starts it anew`,
      starting: true,
    };
  }
  return {
    message:
      `a recap daemon runs on ${dataDir(env)} (${describeHolder(holder)}), but this shell looks for it on ${path} ` +
      `(its XDG_RUNTIME_DIR or RECAP_SOCKET differs from this shell's): set RECAP_SOCKET=${where} here, or ` +
      `recap restart moves it to ${path}; a second daemon on the same data folder cannot start (the event log is locked)`,
    starting: false,
  };
}

/** What stands at `path` if it is not a socket: "a regular file", "a folder"; undefined for a socket or nothing. */
function notASocket(path: string): string | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isSocket()) return undefined;
    return stat.isDirectory() ? 'a folder' : stat.isSymbolicLink() ? 'a symbolic link' : 'a regular file';
  } catch {
    return undefined;
  }
}

async function startDaemon(env: NodeJS.ProcessEnv): Promise<{ code: () => number | null | undefined; said: () => string | undefined }> {
  // Loaded here alone: a command that finds the daemon up (nearly every one) never needs it.
  const { spawn } = await import('node:child_process');
  const dir = makeDataFolder(env);
  let log: number;
  try {
    log = openSync(daemonLogFile(env), 'a', 0o600);
  } catch (error) {
    throw unusable(dir, error);
  }
  const from = fstatSync(log).size;
  const [node, ...args] = daemonCommand();
  const child = spawn(node!, args, { detached: true, stdio: ['ignore', log, log], env: daemonEnvironment(env) });
  closeSync(log);
  let exitCode: number | null | undefined;
  child.once('exit', (code) => (exitCode = code));
  child.unref();
  return { code: () => exitCode, said: () => lastWords(daemonLogFile(env), from) };
}

/** The daemon's own message (`recap: ...`) among what it wrote to its log since `from`. */
function lastWords(file: string, from: number): string | undefined {
  try {
    const fd = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(64 * 1024);
      const read = readSync(fd, buffer, 0, buffer.length, from);
      const lines = buffer.toString('utf8', 0, read).split('\n');
      return lines.findLast((l) => l.startsWith('recap: '))?.slice('recap: '.length);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
