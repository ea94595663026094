// recap's setup commands are the user's: they refuse to run unless this process comes from
// the user's own terminal, judged by its ancestry as the system tells it (src/events/caller.ts),
// not by its environment, which `env -i` empties. The hook's protection rules deny such
// commands to the agent's tools; the daemon judges its socket's caller the same way; this
// catches a spelling they let through before anything is sent or written. Where the system
// cannot tell (macOS does not say which session a process is in), a command the daemon
// judges again goes on to it, and one run here is confirmed at the terminal.
import { UserError } from '../common/errors.js';
import { AGENT_MARKS } from '../agents/marks.js';
import { processChain } from '../platform/choose.js';
import { judgeCaller, userCommandRefusal } from '../events/caller.js';
import { confirmHere } from './terminalConfirm.js';

/** The user's commands whose request the daemon judges itself (its caller, or a confirmation). */
const JUDGED_BY_DAEMON = new Set(['trip', 'stop', 'restart', 'reload', 'pause', 'resume', 'amend', 'redact', 'config allow']);

/** Throws when this process is not the user's: `command` is the user's to run. */
export function refuseInAgentShell(command: string): void {
  const verdict = judgeCaller([processChain(process.pid)], AGENT_MARKS);
  if (verdict.user) return;
  if (verdict.unknowable !== true) throw new UserError(userCommandRefusal(command, verdict.why));
  if (!JUDGED_BY_DAEMON.has(command)) confirmHere(`recap ${command} is the user's to run, and this system cannot tell who runs it (${verdict.why})`);
}
