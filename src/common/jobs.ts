// A folder's project: the nearest folder up from it that holds a `.git` (a repository, a
// worktree, a submodule) or a `.recap/` (a project `recap init` marked, such as one of a
// monorepo's); the folder itself when none does. A project's job is its repository's where it
// has one (common/repository.ts, events/repositoryJobs.ts), else named after its path as a
// short stable id: the folder's name and a hash of its path. Which job a request is about (an
// explicit one, its session's, its folder's) is the daemon's to decide: src/daemon/jobResolver.ts.
// Node built-ins only: the hook client and the daemon use it.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { jobName } from '../events/jobNames.js';

export function projectRoot(cwd: string): string {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, '.git')) || isFolder(resolve(dir, '.recap'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** The job of a project that is no repository's (or was used before recap knew repositories): named after its path. */
export function jobIdFor(projectDir: string): string {
  const name = jobName(basename(projectDir));
  const hash = createHash('sha256').update(resolve(projectDir)).digest('hex').slice(0, 8);
  return `${name}-${hash}`;
}
