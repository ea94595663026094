// Which repository a project folder is, as every clone, worktree and moved copy of it shares:
// its root commit and the folder's place in it, read through the user's git. Node built-ins
// only: the daemon's job resolver and `recap sync` use it. Synchronous and bounded: the
// resolver decides a session's job on its first hook call, once per project folder.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RepositoryIdentity } from '../events/events.js';

/** How long git may take for one folder, both of its calls together. */
export const GIT_DEADLINE_MS = 2_000;

/**
 * The repository `project` is, or undefined when it has none that every copy would share: a
 * folder outside git, a repository without commits, a shallow clone (its oldest commit is not
 * the history's root), git missing, failing or slower than GIT_DEADLINE_MS.
 */
export function repositoryOf(project: string): RepositoryIdentity | undefined {
  const deadline = Date.now() + GIT_DEADLINE_MS;
  const where = git(project, ['rev-parse', '--show-toplevel', '--show-prefix', '--is-shallow-repository'], deadline);
  if (where === undefined) return undefined;
  const [top, prefix, shallow] = where.split('\n');
  if (top === undefined || top === '' || prefix === undefined || shallow !== 'false') return undefined;
  const sub = prefix.replace(/\/$/, '');
  // A `.git` git passed over (an empty folder, a broken file) is not the repository of the one above it.
  if (sub !== '' && existsSync(join(project, '.git'))) return undefined;
  // The root of the first-parent line: merging an unrelated history in later does not change it.
  const roots = git(project, ['rev-list', '--first-parent', '--max-parents=0', 'HEAD'], deadline);
  const root = roots
    ?.split('\n')
    .filter((line) => /^[0-9a-f]{40,64}$/.test(line))
    .sort()[0];
  if (root === undefined) return undefined;
  const key = createHash('sha256').update(`${root}\n${sub}`).digest('hex').slice(0, 16);
  return { key, root, sub, name: basename(sub === '' ? top : project) };
}

/** git's output in `dir` without its last newline, or undefined when it fails or runs past the deadline. */
function git(dir: string, args: string[], deadline: number): string | undefined {
  const timeout = deadline - Date.now();
  if (timeout <= 0) return undefined;
  // No fsmonitor or other helper git could be configured to start for a read; no prompt.
  const run = spawnSync('git', ['-C', dir, '-c', 'core.fsmonitor=false', ...args], {
    env: gitEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
    encoding: 'utf8',
    timeout,
    maxBuffer: 64 * 1024,
    killSignal: 'SIGKILL',
  });
  if (run.error !== undefined || run.status !== 0) return undefined;
  return run.stdout.replace(/\n$/, '');
}

/** The daemon's environment without git's own variables (GIT_DIR and the like would point git elsewhere). */
function gitEnv(): NodeJS.ProcessEnv {
  // No transport at all: a partial clone's missing commit would otherwise be fetched, running
  // whatever upload-pack command the project's config (the agent's to write) names.
  const env: NodeJS.ProcessEnv = { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', GIT_ALLOW_PROTOCOL: 'none', GIT_NO_LAZY_FETCH: '1' };
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  return env;
}
