// Where Qwen Code keeps recap's MCP server: the settings.json recap's hooks are in,
// `{"mcpServers": {"recap": {"command", "args"}}}`; its tools are mcp__recap__<tool>.
import { JSONC } from '../kit/jsonFile.js';
import { commandAndArgs, jsonServers, type McpConfig } from '../kit/mcpServers.js';
import { settingsFile } from './install.js';

export const qwenMcp: McpConfig = {
  file: (scope, project, env) => settingsFile(scope, project, env),
  servers: jsonServers('mcpServers', JSONC),
  ...commandAndArgs(),
};
