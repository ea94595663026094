// Where GitHub Copilot CLI keeps recap's MCP server: $COPILOT_HOME/mcp-config.json (~/.copilot),
// `{"mcpServers": {"recap": {"type": "local", "command", "args", "tools": ["*"]}}}`, for both
// scopes (recap knows no project file of its MCP servers); its tools are recap-<tool>.
import { join } from 'node:path';
import { commandAndArgs, jsonServers, type McpConfig } from '../kit/mcpServers.js';
import { copilotHome } from './facts.js';

export const copilotMcp: McpConfig = {
  file: (_scope, _project, env, home) => join(copilotHome(env, home), 'mcp-config.json'),
  servers: jsonServers('mcpServers'),
  ...commandAndArgs({ type: 'local', tools: ['*'] }),
};
