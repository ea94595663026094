// The command line's facts about the agents (src/agents/cliFacts.ts) are kept apart from the
// adapters so that --help loads none of them: they must say what the adapters do.
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from '../../src/agents/adapters.js';
import { DEFAULT_AGENT, helpNames, PLUGIN_AGENTS, SANDBOX_AGENTS } from '../../src/agents/cliFacts.js';
import { AGENT_NAMES } from '../../src/agents/known.js';
import { requestSchemas } from '../../src/protocol/protocol.js';

describe("the command line's facts about the agents", () => {
  it('list the agents whose adapters install a plugin or configure a sandbox', () => {
    expect(PLUGIN_AGENTS).toEqual(AGENT_NAMES.filter((name) => ADAPTERS[name].plugin === true));
    expect(SANDBOX_AGENTS).toEqual(AGENT_NAMES.filter((name) => ADAPTERS[name].sandbox === true));
  });

  it("default to the agent the daemon reads a check's tool names as", () => {
    expect(requestSchemas.check.parse({ tool: 'Read' }).from).toBe(DEFAULT_AGENT);
  });

  it('name the agents in --help as it always has', () => {
    expect(helpNames(PLUGIN_AGENTS)).toBe('Claude Code');
    expect(helpNames(SANDBOX_AGENTS)).toBe('Claude Code, Codex');
  });
});
