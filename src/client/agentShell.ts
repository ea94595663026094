// recap's setup commands are the user's: they refuse to run in an agent's shell. Claude
// Code's Bash tool sets these variables; the hook's protection rules are what deny such a
// command, and this catches a spelling they let through (a script the agent wrote and runs).
import { UserError } from '../common/errors.js';
import { AGENT_SHELL_VARIABLES } from '../agents/known.js';

/** Throws when `env` is an agent's shell: `command` is the user's to run. */
export function refuseInAgentShell(command: string, env: NodeJS.ProcessEnv = process.env): void {
  const marker = AGENT_SHELL_VARIABLES.find((name) => env[name] !== undefined);
  if (marker !== undefined) {
    throw new UserError(`recap ${command} is the user's to run, and this shell is an agent's (${marker} is set): run it in your own terminal`);
  }
}
