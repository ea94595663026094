// RECAP_DISABLE=1: the user's off switch for one shell. Its hook lets everything through, but
// only when the variable came from the user: it must have been in the agent's environment
// when the agent started (a settings or .env file the agent loads later does not count), and
// the process that set it must not be an agent's shell tool (an agent starting another agent
// with it). Read from the system (src/platform), only when the variable is set. Node built-ins only: recap-hook
// loads it.
import { AGENT_SHELL_VARIABLES } from '../agents/known.js';
import { processChain } from '../platform/choose.js';
import type { Proc as Process } from '../platform/platform.js';

/** What the switch needs of a process. */
export type Proc = Pick<Process, 'pid' | 'ppid' | 'comm' | 'env'>;

export type Switch = { off: true } | { off: false; why: string };

/** The variable is set to something that means on (not empty, not 0). */
export function disableAsked(env: NodeJS.ProcessEnv): boolean {
  const value = env.RECAP_DISABLE;
  return value !== undefined && value !== '' && value !== '0';
}

/** Programs that run a hook command: the agent is the first ancestor that is none of them. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox']);
const IGNORED = 'RECAP_DISABLE is ignored, so recap works as usual:';

/**
 * Whether RECAP_DISABLE in the hook's environment is the user's. `chain` is the hook's
 * ancestors, its parent first, each with the environment it started with.
 */
export function judgeDisable(chain: readonly Proc[]): Switch {
  const agentAt = chain.findIndex((p) => !SHELLS.has(p.comm));
  const agent = chain[agentAt];
  if (agent === undefined) return { off: false, why: `${IGNORED} recap could not find the agent among the processes above its hook` };
  if (!asked(agent)) {
    return {
      off: false,
      why: `${IGNORED} it was not in the agent's environment when it started (a settings or .env file set it); set it in your shell before you start the agent`,
    };
  }
  // The topmost process that had it from its start; its parent set it.
  let origin = agentAt;
  while (origin + 1 < chain.length && asked(chain[origin + 1]!)) origin += 1;
  const setter = chain[origin + 1];
  for (const p of chain.slice(agentAt, origin + 2)) {
    const marker = AGENT_SHELL_VARIABLES.find((name) => p.env.has(name));
    if (marker !== undefined) return { off: false, why: `${IGNORED} it was set in an agent's shell (${marker} is set for process ${p.pid}, ${p.comm}), not in yours` };
  }
  // An orphan adopted by init (or a user manager) has no shell of the user's above it to vouch.
  if (setter === undefined || setter.pid === 1 || setter.comm === 'systemd') {
    return {
      off: false,
      why: `${IGNORED} the process that set it is gone (process ${chain[origin]!.pid} was left to ${setter?.comm ?? 'nobody'}); set it in your shell before you start the agent`,
    };
  }
  return { off: true };
}

const asked = (p: Proc) => disableAsked(Object.fromEntries(p.env));

/** The switch as this hook finds it: undefined when RECAP_DISABLE is not set. */
export function disableSwitch(env: NodeJS.ProcessEnv = process.env): Switch | undefined {
  return disableAsked(env) ? judgeDisable(processChain(process.ppid)) : undefined;
}
