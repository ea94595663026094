// recap's own MCP tools (recap mcp): the one place that says which tool names are recap's, so
// that a tripped gate lets them through (they only read the job's memory). Each agent names an
// MCP tool its own way; its facts give that naming, and only these four exact names of the
// server called `recap` pass. Who may register a server under that name is protection's
// business: every agent config that registers MCP servers is one of the agents' settings.

/** The name recap registers its server under in every agent's config. */
export const RECAP_MCP_SERVER = 'recap';

/** The tools `recap mcp` serves, all read-only. */
export const RECAP_MCP_TOOLS = ['search', 'timeline', 'get', 'decisions'] as const;

export type RecapMcpTool = (typeof RECAP_MCP_TOOLS)[number];

/** How an agent names an MCP server's tool for its model and its hooks (Claude Code: mcp__<server>__<tool>). */
export type McpToolName = (server: string, tool: string) => string;

/** Each agent's names for recap's tools, made once: every tool call asks, and the names were four new strings a call. */
const namesByNaming = new WeakMap<McpToolName, ReadonlySet<string>>();

/** Whether `name`, as the agent gives it, is exactly one of recap's own MCP tools. */
export function isRecapMcpTool(name: string, naming: McpToolName): boolean {
  let names = namesByNaming.get(naming);
  if (names === undefined) {
    names = new Set(RECAP_MCP_TOOLS.map((tool) => naming(RECAP_MCP_SERVER, tool)));
    namesByNaming.set(naming, names);
  }
  return names.has(name);
}
