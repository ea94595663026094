// The user's `git`, run by the daemon for `recap sync`: never through a shell, never with a
// prompt (no terminal to ask on: a credential git cannot find makes it fail, and it says so),
// and always within a deadline, past which git and whatever it started (ssh, a remote
// helper) are killed as a group.
import { spawn } from 'node:child_process';

/** A git command that failed, timed out or could not start: `message` says which and git's own last words. */
export class GitFailed extends Error {
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

export type GitRun = {
  /** The repository to run in (`git -C`), or a bare one (`--git-dir`). */
  cwd?: string;
  gitDir?: string;
  input?: string | Buffer;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** Aborted: git is killed at once (the daemon is stopping). */
  signal?: AbortSignal;
};

/** The most output a git command's answer may hold: a fetched chain's files are read in slices well under it. */
const MAX_OUTPUT = 256 * 1024 * 1024;

/** The environment git runs with: the user's, but never a prompt, and ssh in batch mode unless the user chose its command. */
export function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: env.GIT_ASKPASS ?? '',
    SSH_ASKPASS_REQUIRE: 'never',
    ...(env.GIT_SSH_COMMAND === undefined && env.GIT_SSH === undefined ? { GIT_SSH_COMMAND: 'ssh -o BatchMode=yes' } : {}),
    // recap's own repositories must not pick up a repository the daemon's folder happens to be in.
    GIT_CEILING_DIRECTORIES: env.GIT_CEILING_DIRECTORIES ?? '',
    // The remote's URL comes from the project's git config, which the agent can write: only the
    // plain transports, never a remote helper (`ext::`, `<helper>::`) that would run a program.
    GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh',
  };
}

/** Runs `git args...`; resolves with its standard output, rejects with GitFailed. */
export function git(args: readonly string[], run: GitRun): Promise<Buffer> {
  const where = run.gitDir !== undefined ? ['--git-dir', run.gitDir] : run.cwd !== undefined ? ['-C', run.cwd] : [];
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...where, ...args], {
      env: gitEnv(run.env ?? process.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group: a deadline kills ssh and the remote helpers with it.
      detached: true,
    });
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    let settled = false;
    const finish = (error: GitFailed | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', aborted);
      if (error) reject(error);
      else resolve(Buffer.concat(out));
    };
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    const timer = setTimeout(() => {
      kill();
      finish(new GitFailed(`git ${args[0]} did not finish within ${run.timeoutMs} ms${lastWords(err)}`, true));
    }, run.timeoutMs);
    const aborted = () => {
      kill();
      finish(new GitFailed(`git ${args[0]} was stopped: the recap daemon is stopping`));
    };
    if (run.signal?.aborted) aborted();
    run.signal?.addEventListener('abort', aborted, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) {
        kill();
        finish(new GitFailed(`git ${args[0]} printed more than ${MAX_OUTPUT} bytes`));
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-4000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(
        new GitFailed(error.code === 'ENOENT' ? 'git is not installed (or not on the PATH of the recap daemon): install git to sync' : `git could not start: ${error.message}`),
      );
    });
    child.on('close', (code, signal) => {
      if (code === 0) finish(undefined);
      else finish(new GitFailed(`git ${args[0]} failed (${signal ?? `exit ${code}`})${lastWords(err)}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(run.input ?? '');
  });
}

/** git's last lines of complaint, for a message. */
function lastWords(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines.length === 0 ? '' : `: ${lines.slice(-3).join(' / ')}`;
}
