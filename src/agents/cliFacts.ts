// What recap's command line says of the agents without loading their adapters (which would
// more than double its start-up): the agent `recap check --agent` means when none is named,
// and the agents `recap install --plugin` and `--sandbox` serve. test/unit/cliFacts.test.ts
// holds these to the adapters.
import { AGENT_FACTS, type AgentName } from './known.js';

/** Whose tool names `recap check` reads when --agent (or the request's `from`) is not given. */
export const DEFAULT_AGENT: AgentName = 'claude';

/** The agents recap installs as a plugin (`recap install --plugin`). */
export const PLUGIN_AGENTS: readonly AgentName[] = ['claude'];

/** The agents whose own OS sandbox recap configures (`recap install --sandbox`). */
export const SANDBOX_AGENTS: readonly AgentName[] = ['claude', 'codex'];

/** Agents as --help names them: by the name their users start them by. */
export const helpNames = (agents: readonly AgentName[]): string => agents.map((name) => AGENT_FACTS[name].launch.title).join(', ');
