// TEMPORARY until the repository identity lands (src/common/repository.ts).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { basename, relative } from 'node:path';
import type { RepositoryIdentity } from '../../events/events.js';

export function repositoryOf(project: string): RepositoryIdentity | undefined {
  const run = (args: string[]) => spawnSync('git', ['-C', project, ...args], { encoding: 'utf8', timeout: 2000, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  const roots = run(['rev-list', '--max-parents=0', 'HEAD']);
  if (roots.status !== 0) return undefined;
  const root = roots.stdout.split('\n').filter(Boolean).sort()[0];
  const top = run(['rev-parse', '--show-toplevel']).stdout.trim();
  if (root === undefined || top === '') return undefined;
  const sub = relative(top, project);
  const key = createHash('sha256').update(`${root}\n${sub}`).digest('hex').slice(0, 16);
  return { key, root, sub, name: basename(top) };
}
