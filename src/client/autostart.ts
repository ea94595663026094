// Connect to the daemon, starting it first when nobody answers (as watchman and gpg-agent
// do): detached, its log in a file under the data folder, then wait for its socket.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { RECAP_BIN } from '../common/bins.js';
import { UserError } from '../common/errors.js';
import { daemonLogFile, dataDir, socketPath } from '../common/paths.js';
import { Client, DaemonUnavailable } from './socketClient.js';

export class DaemonStartFailed extends UserError {}

export async function connectOrStart(env: NodeJS.ProcessEnv = process.env, deadlineMs = 10_000): Promise<Client> {
  const path = socketPath(env);
  try {
    return await Client.connect(path);
  } catch (error) {
    if (!(error instanceof DaemonUnavailable)) throw error;
  }
  const exited = startDaemon(env);
  const deadline = Date.now() + deadlineMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    try {
      return await Client.connect(path);
    } catch (error) {
      if (!(error instanceof DaemonUnavailable)) throw error;
    }
    const code = exited.code();
    if (code !== undefined) {
      throw new DaemonStartFailed(`the recap daemon exited at start (code ${code}); its log is ${daemonLogFile(env)}`);
    }
    if (Date.now() > deadline) {
      throw new DaemonStartFailed(`the recap daemon did not open ${path} within ${deadlineMs / 1000} s; its log is ${daemonLogFile(env)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function startDaemon(env: NodeJS.ProcessEnv): { code: () => number | null | undefined } {
  mkdirSync(dataDir(env), { recursive: true, mode: 0o700 });
  const log = openSync(daemonLogFile(env), 'a', 0o600);
  const child = spawn(process.execPath, [RECAP_BIN, 'daemon'], { detached: true, stdio: ['ignore', log, log], env });
  closeSync(log);
  let exitCode: number | null | undefined;
  child.once('exit', (code) => (exitCode = code));
  child.unref();
  return { code: () => exitCode };
}
