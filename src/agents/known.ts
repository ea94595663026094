// Every agent recap speaks to, by the name `recap install` and `recap-hook` take: the light
// half of each (facts.ts), which recap-hook loads. Adding an agent is a folder beside
// claude/ and one line here and one in adapters.ts.
import { claudeFacts } from './claude/facts.js';
import { codexFacts } from './codex/facts.js';
import { copilotFacts } from './copilot/facts.js';
import type { AgentFacts } from './facts.js';
import { geminiFacts } from './gemini/facts.js';
import { opencodeFacts } from './opencode/facts.js';
import { qwenFacts } from './qwen/facts.js';

export const AGENT_FACTS = {
  claude: claudeFacts,
  codex: codexFacts,
  gemini: geminiFacts,
  qwen: qwenFacts,
  copilot: copilotFacts,
  opencode: opencodeFacts,
} as const satisfies Record<string, AgentFacts>;

export type AgentName = keyof typeof AGENT_FACTS;
export const AGENT_NAMES = Object.keys(AGENT_FACTS) as AgentName[];

export function isAgentName(name: unknown): name is AgentName {
  return typeof name === 'string' && Object.hasOwn(AGENT_FACTS, name);
}

/** The variables any agent sets in its shell tool: recap's setup commands refuse to run where one is set. */
export const AGENT_SHELL_VARIABLES: readonly string[] = [...new Set(Object.values(AGENT_FACTS).flatMap((f) => f.shellVariables))];

/** The session id an agent's shell tool carries, from the first agent whose variable is set. */
export function sessionFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  for (const facts of Object.values(AGENT_FACTS) as AgentFacts[]) {
    const value = facts.sessionVariable !== undefined ? env[facts.sessionVariable] : undefined;
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}
