// What marks a process as an agent's, for judging who runs the user's commands
// (src/events/caller.ts): the agents' shell variables and their own programs. Apart from
// known.ts so that recap-hook, which never judges a caller, does not load the judge.
import { agentOfBy, type AgentMarks } from '../events/caller.js';
import { AGENT_FACTS, AGENT_SHELL_VARIABLES } from './known.js';

export const AGENT_MARKS: AgentMarks = { variables: AGENT_SHELL_VARIABLES, agentOf: agentOfBy(Object.values(AGENT_FACTS).map((facts) => facts.launch)) };
