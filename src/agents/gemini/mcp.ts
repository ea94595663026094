// Where Gemini CLI keeps recap's MCP server: its settings.json (user, or the project's
// .gemini/settings.json), `{"mcpServers": {"recap": {"command", "args"}}}`; its tools are mcp_recap_<tool>.
import { join } from 'node:path';
import { JSONC } from '../kit/jsonFile.js';
import { commandAndArgs, jsonServers, type McpConfig } from '../kit/mcpServers.js';
import { geminiDir } from './facts.js';

export const geminiMcp: McpConfig = {
  file: (scope, project, env, home) => (scope === 'project' ? join(project, '.gemini', 'settings.json') : join(geminiDir(env, home), 'settings.json')),
  servers: jsonServers('mcpServers', JSONC),
  ...commandAndArgs(),
};
