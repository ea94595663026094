// Where Claude Code keeps recap's MCP server: ~/.claude.json (user scope; $CLAUDE_CONFIG_DIR/.claude.json
// when that is set) or the project's .mcp.json, `{"mcpServers": {"recap": {"type": "stdio", ...}}}`.
import { join } from 'node:path';
import { commandAndArgs, jsonServers, type McpConfig } from '../kit/mcpServers.js';

export const claudeMcp: McpConfig = {
  file: (scope, project, env, home) => (scope === 'project' ? join(project, '.mcp.json') : join(env.CLAUDE_CONFIG_DIR || home, '.claude.json')),
  servers: jsonServers('mcpServers'),
  ...commandAndArgs({ type: 'stdio' }),
};
