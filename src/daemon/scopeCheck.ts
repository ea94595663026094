// SCOPE=marked at the edge: whether the project has its `.recap/` folder (one stat, only under
// that scope) and whether the job holds anything yet; events/scope.ts decides.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { actsOn, jobKnown, scopeInForce } from '../events/scope.js';
import type { CommandService } from './commandService.js';
import type { Where } from './jobResolver.js';

/** Whether `project` holds a `.recap/` folder: `recap init` makes one. */
export function isMarked(project: string | undefined): boolean {
  if (project === undefined) return false;
  try {
    return statSync(join(project, '.recap')).isDirectory();
  } catch {
    return false;
  }
}

/** Whether recap acts on a hook call of this job and project. */
export function inScope(s: CommandService, where: Where): boolean {
  const { config, sources } = s.deps.config.forProject(where.project);
  const scope = scopeInForce(config.SCOPE, sources.SCOPE !== 'default', s.deps.config.scopeFromEnv);
  return actsOn(
    scope,
    () => isMarked(where.project),
    () => jobKnown(s.state(where.job)),
  );
}
