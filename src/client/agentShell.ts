// recap's setup commands are the user's: they refuse to run unless this process comes from
// the user's own terminal, judged by its ancestry as /proc tells it (src/events/caller.ts),
// not by its environment, which `env -i` empties. The hook's protection rules deny such
// commands to the agent's tools; the daemon judges its socket's caller the same way; this
// catches a spelling they let through before anything is sent or written.
import { UserError } from '../common/errors.js';
import { AGENT_MARKS } from '../agents/marks.js';
import { processChain } from '../common/processes.js';
import { judgeCaller, userCommandRefusal } from '../events/caller.js';

/** Throws when this process is not the user's: `command` is the user's to run. */
export function refuseInAgentShell(command: string): void {
  const verdict = judgeCaller([processChain(process.pid)], AGENT_MARKS);
  if (!verdict.user) throw new UserError(userCommandRefusal(command, verdict.why));
}
