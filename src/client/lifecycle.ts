// The daemon's life from the command line: `recap stop`, `recap restart`, `recap reload`
// and `recap status --daemon`. A daemon is reached on its socket; one that runs on this data
// folder but listens elsewhere is found by its lock and pid file, and stopped by its PID.
import { describeHolder, isAlive, lockHolder, runningDaemon, type Holder } from '../common/daemonRecord.js';
import { UserError } from '../common/errors.js';
import { readProc } from '../platform/choose.js';
import { dataDir, eventLogDir, socketPath } from '../common/paths.js';
import type { DaemonInfo, RequestFields, ResponseOf } from '../protocol/protocol.js';
import { connectOrStart, whyUnreachable } from './autostart.js';
import { Client, DaemonUnavailable, NoAnswer, RemoteError } from './socketClient.js';
import { withConfirmation } from './terminalConfirm.js';

type Env = NodeJS.ProcessEnv;

/** How long a daemon may take to finish its requests in flight and close its log. */
const STOP_DEADLINE_MS = 15_000;

/** `recap status --daemon`: the daemon as it is, or why none answers here. */
export type DaemonState = ({ running: true } & DaemonInfo) | { running: false; socket: string; dataDir: string; problem?: string };

/** Asks the daemon on this shell's socket, starting none; undefined when nobody listens there. */
async function reach(env: Env): Promise<Client | undefined> {
  try {
    return await Client.connect(socketPath(env), 1000);
  } catch (error) {
    if (error instanceof DaemonUnavailable) return undefined;
    throw error;
  }
}

async function ask<O extends 'daemon' | 'stop' | 'reload'>(client: Client, op: O, fields: RequestFields<O>, timeoutMs = 5000): Promise<ResponseOf<O>> {
  try {
    return await withConfirmation((confirm) => client.request(op, confirm === undefined ? fields : { ...fields, confirm }, timeoutMs));
  } catch (error) {
    if (error instanceof NoAnswer) {
      throw new UserError(`something listens on ${socketPath()} but did not answer as a recap daemon does within ${timeoutMs / 1000} s (${(error as Error).message})`);
    }
    throw error;
  } finally {
    client.close();
  }
}

export async function daemonState(env: Env = process.env): Promise<DaemonState> {
  const client = await reach(env);
  if (client) {
    try {
      return { running: true, ...(await ask(client, 'daemon', {})) };
    } catch (error) {
      if (!(error instanceof RemoteError && error.code === 'unknown_op')) throw error;
      // A daemon of an older recap, still running after an upgrade.
      throw new UserError(`the daemon on ${socketPath(env)} is of an older recap, which cannot tell its status; recap restart starts this recap's`);
    }
  }
  const base = { running: false as const, socket: socketPath(env), dataDir: dataDir(env) };
  const why = whyUnreachable(env);
  return why ? { ...base, problem: why.message } : base;
}

/** What `recap stop` did: the daemon it stopped, and how it reached it. */
export type Stopped = { stopped: false; dataDir: string } | { stopped: true; pid: number; by: 'socket' | 'signal'; systemd: boolean };

export async function stopDaemon(env: Env = process.env): Promise<Stopped> {
  const client = await reach(env);
  if (client) {
    try {
      const info = await ask(client, 'daemon', {});
      const again = await reach(env);
      if (again) await ask(again, 'stop', {});
      await exited(info.pid, env);
      return { stopped: true, pid: info.pid, by: 'socket', systemd: info.socket.includes('from systemd') };
    } catch (error) {
      // A daemon of an older recap, still running after an upgrade, knows no stop: its PID does.
      if (!(error instanceof RemoteError && error.code === 'unknown_op')) throw error;
    }
  }
  // Nobody answers here, or not to stop: a daemon may hold this data folder, found by its lock.
  const holder = runningDaemon(env);
  if (!holder) return { stopped: false, dataDir: dataDir(env) };
  if (!isRecapDaemon(holder)) {
    throw new UserError(`the event log at ${eventLogDir(env)} is held by ${describeHolder(holder)}, which does not look like recap's daemon; recap leaves it alone`);
  }
  process.kill(holder.pid, 'SIGTERM');
  await exited(holder.pid, env);
  return { stopped: true, pid: holder.pid, by: 'signal', systemd: false };
}

/** Stops the daemon (wherever it listens), then starts one for this shell: its state after. */
export async function restartDaemon(env: Env = process.env): Promise<{ stopped: Stopped; now: DaemonInfo }> {
  const stopped = await stopDaemon(env);
  const client = await connectOrStart(env);
  return { stopped, now: await ask(client, 'daemon', {}) };
}

/** `recap reload`: the daemon re-reads the user's config; undefined when none runs (it reads it when it starts). */
export async function reloadDaemon(env: Env = process.env): Promise<ResponseOf<'reload'> | undefined> {
  const client = await reach(env);
  if (client) return ask(client, 'reload', {});
  const why = whyUnreachable(env);
  if (why) throw new UserError(why.message);
  return undefined;
}

/** A process that wrote recap's pid file, or whose command line is recap's daemon. */
function isRecapDaemon(holder: Holder): boolean {
  if (holder.record) return true;
  const words = readProc(holder.pid)?.argv ?? [];
  return words.some((w) => /recap(\.js)?$/.test(w)) && words.includes('daemon');
}

/**
 * Waits until `pid` has exited, not only let go of the event log: `recap restart` and the
 * user's next step must not meet the old process still closing down.
 */
async function exited(pid: number, env: Env): Promise<void> {
  const deadline = Date.now() + STOP_DEADLINE_MS;
  for (let pause = 10; running(pid); pause = Math.min(pause * 2, 200)) {
    if (Date.now() > deadline) {
      const what = lockHolder(eventLogDir(env)) === pid ? 'still runs' : 'let go of the event log, but its process still runs';
      throw new UserError(`the recap daemon (PID ${pid}) was asked to stop and ${what} after ${STOP_DEADLINE_MS / 1000} s; kill ${pid} ends it`);
    }
    await new Promise((resume) => setTimeout(resume, pause));
  }
}

/** Alive and not a zombie (one that has exited and waits only for its parent to reap it). */
function running(pid: number): boolean {
  return isAlive(pid) && readProc(pid)?.state !== 'Z';
}
