// `recap mcp`: recap's read-only MCP server over stdio (the official SDK). A thin client of
// the daemon: each tool call is one request on recap's socket, for the job of the folder the
// agent started the server in, as the CLI finds it; a failure is the tool's error, with what
// to do, and never ends the server.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { UserError } from '../../common/errors.js';
import { socketPath } from '../../common/paths.js';
import { recapVersion } from '../../common/version.js';
import { RECAP_MCP_SERVER } from '../../events/recapTools.js';
import { target } from '../jobCommands.js';
import { Client, DaemonUnavailable, RemoteError } from '../socketClient.js';
import { RECAP_TOOLS, type Ask } from './tools.js';

/** Asks the daemon on the socket of `env`, with the job fields of this folder; never starts a daemon. */
function asker(env: NodeJS.ProcessEnv, job: string | undefined): Ask {
  return async (op, fields) => {
    const client = await Client.connect(socketPath(env));
    try {
      return await client.request(op, { ...target({ json: false, debug: false, job }), ...fields });
    } finally {
      client.close();
    }
  };
}

/** What the model reads when a call fails: what was wrong and what to do. */
export function toolError(error: unknown, env: NodeJS.ProcessEnv): CallToolResult {
  const text =
    error instanceof DaemonUnavailable
      ? `recap's daemon is not running (nothing answers on ${socketPath(env)}): ask the user to start it (recap daemon, or any recap command such as recap status), then call this tool again.`
      : error instanceof RemoteError && error.code === 'internal'
        ? `recap's daemon could not answer: ${error.message}. Use recap chain and recap show N in the shell instead.`
        : error instanceof UserError
          ? `recap: ${error.message}`
          : `recap could not answer: ${error instanceof Error ? error.message : String(error)}`;
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The tool calls being answered: the server closes only once they are. */
export class CallsInFlight {
  private count = 0;
  private waiting: (() => void)[] = [];

  async run<T>(call: () => Promise<T>): Promise<T> {
    this.count += 1;
    try {
      return await call();
    } finally {
      this.count -= 1;
      if (this.count === 0) for (const wake of this.waiting.splice(0)) wake();
    }
  }

  /** Resolved when no call is being answered. */
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
}

/** The server; `job` (recap mcp --job) else RECAP_JOB, the agent's session or the folder's project. */
export function mcpServer(job: string | undefined, env: NodeJS.ProcessEnv = process.env, calls = new CallsInFlight()): McpServer {
  const server = new McpServer({ name: RECAP_MCP_SERVER, version: recapVersion() });
  const ask = asker(env, job);
  for (const tool of RECAP_TOOLS) {
    const run = tool.run as (args: unknown, ask: Ask) => ReturnType<typeof tool.run>;
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: true, openWorldHint: false } },
      (args: unknown): Promise<CallToolResult> =>
        calls.run(async () => {
          try {
            const { text, structured } = await run(args, ask);
            return { content: [{ type: 'text', text }], structuredContent: structured };
          } catch (error) {
            return toolError(error, env);
          }
        }),
    );
  }
  return server;
}

/** Serves on stdin and stdout until the client closes them. */
export async function serveMcp(job: string | undefined): Promise<void> {
  const calls = new CallsInFlight();
  const server = mcpServer(job, process.env, calls);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  // A client that sends its last call and closes stdin still gets the answer: the calls being
  // answered finish, and their answers are written (a turn later), before the server closes.
  process.stdin.once('end', () => void calls.idle().then(() => new Promise((resolve) => setImmediate(resolve)).then(() => server.close())));
  await closed;
}
