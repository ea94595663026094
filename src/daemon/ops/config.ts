// `recap config`: a project's configuration in force, each value's source and the changes
// waiting for approval; with `allow`, the user's approval of the project's file (with
// `user`, of the user's file) as it is now, recorded with its hash, and what it changed.
import type { Caller } from '../../events/caller.js';
import { CommandRefused } from '../../events/commands.js';
import { projectConfigPath } from '../../common/paths.js';
import type { RequestOf, ResponseOf } from '../../protocol/protocol.js';
import type { CommandService } from '../commandService.js';
import type { OpsOf } from './table.js';

export function configOps(s: CommandService): OpsOf<'config'> {
  return { config: (r, _, by) => config(s, r, by) };
}

async function config(s: CommandService, r: RequestOf<'config'>, by?: Caller): Promise<ResponseOf<'config'>> {
  const files = s.deps.config;
  if (r.allow && r.user) {
    // The user's own file: no job or project to find.
    const read = files.allow({}, r.hash, by);
    if (!read.ok) throw new CommandRefused(read.problems.join('\n'));
    await s.recordUserConfig();
    return read.allowed;
  }
  const where = s.where(r);
  const { job, project } = where;
  if (!r.allow) {
    const { config: values, sources } = files.forProject(project);
    const pending = project !== undefined ? files.pending(project) : undefined;
    const userPending = files.userPending();
    // Not a plain read, on purpose: what the files decided when read (a stricter file applied
    // at once, a weakening held) goes on record here, so a restart before any other write
    // still holds a later weakening at the value that was in force.
    await s.recordDecided();
    const file = project !== undefined ? projectConfigPath(project) : files.userFile;
    return { file, userFile: files.userFile, values, sources, problems: files.problems, ...(pending ? { pending } : {}), ...(userPending ? { userPending } : {}) };
  }
  if (project === undefined) throw new CommandRefused('a project configuration needs a folder: run this in the project, or give its folder');
  const read = files.allow({ job, project }, r.hash, by);
  if (!read.ok) throw new CommandRefused(read.problems.join('\n'));
  // The approval goes on record with the configuration it puts in force, in one append (commit drains the approvals first).
  await s.recordPending({ job, project });
  return read.allowed;
}
