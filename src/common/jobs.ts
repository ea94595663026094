// A job is named after its project: the git top-level of a folder (the folder itself
// outside git), as a short stable id: the folder's name and a hash of its path. Which job
// a request is about (an explicit one, its session's, its folder's) is the daemon's to
// decide: src/daemon/jobResolver.ts.
// Node built-ins only: the hook client and the daemon use it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

export function projectRoot(cwd: string): string {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

export function jobIdFor(projectDir: string): string {
  const name =
    basename(projectDir)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 40) || 'root';
  const hash = createHash('sha256').update(resolve(projectDir)).digest('hex').slice(0, 8);
  return `${name}-${hash}`;
}
