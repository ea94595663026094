// `recap mcp`: recap's read-only MCP server on stdio, which an agent starts (recap install
// <agent> --mcp registers it). The SDK is loaded only when this command runs.
import type { Builder } from '../jobCommands.js';
import { documented } from './docs.js';

export const mcpCommand: Builder = (y) =>
  y.command(
    'mcp',
    'a read-only MCP server on stdio, for the agent',
    (a) => documented(a, 'mcp'),
    async (argv) => {
      const { serveMcp } = await import('../mcp/server.js');
      await serveMcp(argv.job);
    },
  );
