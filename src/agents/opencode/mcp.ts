// Where opencode keeps recap's MCP server: its opencode.json (the user's config folder, or the
// project's), `{"mcp": {"recap": {"type": "local", "command": [...], "enabled": true}}}`; its
// tools are recap_<tool>.
import { join } from 'node:path';
import { isObject, JSONC } from '../kit/jsonFile.js';
import { jsonServers, type McpConfig } from '../kit/mcpServers.js';
import { opencodeConfigDir } from './facts.js';

export const opencodeMcp: McpConfig = {
  file: (scope, project, env, home) => (scope === 'project' ? join(project, 'opencode.json') : join(opencodeConfigDir(env, home), 'opencode.json')),
  servers: jsonServers('mcp', JSONC),
  entry: (command) => ({ type: 'local', command, enabled: true }),
  commandOf: (entry) => (isObject(entry) && Array.isArray(entry.command) && entry.command.every((w) => typeof w === 'string') ? (entry.command as string[]) : undefined),
};
