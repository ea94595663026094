// recap's MCP server (`recap mcp`) in an agent's JSON config: registered under the name
// `recap` with this Node and this recap by absolute path, the user's other servers kept;
// removed again; and checked by the doctor, which warns of a `recap` server that runs
// something else (the gate lets its tools through by name: src/events/recapTools.ts).
import { RECAP_BIN } from '../../common/bins.js';
import type { Check } from '../../common/check.js';
import { RECAP_MCP_SERVER } from '../../events/recapTools.js';
import { homedir } from 'node:os';
import { jsonText, modeOf, writeIfChanged } from './files.js';
import { InstallError } from './installError.js';
import { FIX_OR_MOVE, isObject, readJsonForWriting, readJsonObject, type Dialect } from './jsonFile.js';

/** Where an install writes (recap install's scope, project and environment); kept apart from adapter.ts, which names McpConfig. */
type Scope = 'user' | 'project';
type Where = { scope: Scope; project: string; env: NodeJS.ProcessEnv };
const homeOf = (env: NodeJS.ProcessEnv): string => env.HOME ?? homedir();
const scopeFlag = (scope: Scope): string => (scope === 'project' ? ' --scope project' : '');

/** The program and arguments that start recap's server: Node and recap.js, never looked up on PATH. */
export const recapMcpCommand = (node = process.execPath): string[] => [node, RECAP_BIN, 'mcp'];

/**
 * How an agent's config file holds its servers (JSON's object under a key; Codex's TOML
 * tables): read as an object of servers by name, and written with recap's entry set or taken
 * out, every other server and key kept.
 */
export type McpFile = {
  /** The servers the file registers ({} when none); undefined when there is no file. */
  read(file: string): { ok: true; servers: Record<string, unknown> } | { ok: false; problem: string } | undefined;
  /** Writes the file with recap's entry, or without it when `entry` is undefined; true when the file changed. Throws InstallError on a file recap will not edit. */
  write(file: string, entry: Record<string, unknown> | undefined): boolean;
};

/** Where and how an agent keeps its MCP servers. */
export type McpConfig = {
  /** The config file for the scope, where the agent has one for it. */
  file(scope: Scope, project: string, env: NodeJS.ProcessEnv, home: string): string;
  /** The file's servers, in its format. */
  servers: McpFile;
  /** recap's entry in the agent's format. */
  entry(command: string[]): Record<string, unknown>;
  /** The command line an entry runs, read back. */
  commandOf(entry: unknown): string[] | undefined;
};

/** The usual shape: `{ command, args }`, with whatever else the agent wants beside them. */
export const commandAndArgs = (extra: Record<string, unknown> = {}) => ({
  entry: ([command, ...args]: string[]) => ({ ...extra, command, args }),
  commandOf: (entry: unknown) =>
    isObject(entry) && typeof entry.command === 'string' && Array.isArray(entry.args) && entry.args.every((a) => typeof a === 'string')
      ? [entry.command, ...(entry.args as string[])]
      : undefined,
});

function serversOf(file: string, value: unknown, key: string): Record<string, unknown> {
  if (!isObject(value)) throw new InstallError(`${file} does not hold a JSON object; ${FIX_OR_MOVE}`);
  const found = value[key];
  if (found !== undefined && !isObject(found)) throw new InstallError(`"${key}" in ${file} is not an object; ${FIX_OR_MOVE}`);
  return (found as Record<string, unknown> | undefined) ?? {};
}

function writeJson(file: string, value: Record<string, unknown>, comments: boolean): boolean {
  if (comments)
    throw new InstallError(
      `${file} holds comments, which recap would lose by writing the file; take them out (or move the file aside) and run the command again (recap changed nothing)`,
    );
  return writeIfChanged(file, jsonText(value), { mode: modeOf(file) });
}

/** A JSON file whose servers are the object under `key` (mcpServers; opencode's mcp), read in the agent's dialect. */
export const jsonServers = (key: string, dialect: Dialect = {}): McpFile => ({
  read(file) {
    const read = readJsonObject(file, dialect);
    if (read === undefined || !read.ok) return read;
    return { ok: true, servers: isObject(read.value[key]) ? read.value[key] : {} };
  },
  write(file, entry) {
    const read = readJsonForWriting(file, dialect);
    const value = (read?.value ?? {}) as Record<string, unknown>;
    const { [RECAP_MCP_SERVER]: _recap, ...others } = serversOf(file, value, key);
    const after = { ...value, [key]: entry === undefined ? others : { ...others, [RECAP_MCP_SERVER]: entry } };
    if (read !== undefined && JSON.stringify(after) === JSON.stringify(value)) return false;
    return writeJson(file, after, read?.comments ?? false);
  },
});

/** Registers recap's server; true when the file changed. */
export function addRecapServer(config: McpConfig, options: Where): { file: string; changed: boolean } {
  const file = config.file(options.scope, options.project, options.env, homeOf(options.env));
  return { file, changed: config.servers.write(file, config.entry(recapMcpCommand())) };
}

/** Removes recap's server (only one that runs recap); the file when it changed. */
export function removeRecapServer(config: McpConfig, options: Where): string[] {
  const file = config.file(options.scope, options.project, options.env, homeOf(options.env));
  const read = config.servers.read(file);
  if (read === undefined || !read.ok) return [];
  if (!runsRecap(config.commandOf(read.servers[RECAP_MCP_SERVER]))) return [];
  return config.servers.write(file, undefined) ? [file] : [];
}

const runsRecap = (command: string[] | undefined) => command !== undefined && command.length === 3 && command[1] === RECAP_BIN && command[2] === 'mcp';

/** The doctor's word on recap's server for an agent: registered and this recap's, missing (fine), or another program under recap's name. */
export function recapServerCheck(config: McpConfig, agent: string, title: string, project: string, env: NodeJS.ProcessEnv): Check {
  const name = `${title} MCP server`;
  const home = homeOf(env);
  const files = [...new Set([config.file('user', project, env, home), config.file('project', project, env, home)])];
  for (const file of files) {
    const read = config.servers.read(file);
    if (read === undefined) continue;
    if (!read.ok) return { name, ok: false, detail: read.problem, fix: `fix ${file}` };
    const entry = read.servers[RECAP_MCP_SERVER];
    if (entry === undefined) continue;
    const command = config.commandOf(entry);
    const scope = file === files[0] ? 'user' : 'project';
    if (!runsRecap(command)) {
      return {
        name,
        ok: false,
        detail: `a server named recap in ${file} runs ${command?.join(' ') ?? 'something recap cannot read'}, not recap: its tools would pass a tripped gate`,
        fix: `remove it, then recap install ${agent} --mcp${scopeFlag(scope)}`,
      };
    }
    if (command![0] !== process.execPath) {
      return {
        name,
        ok: false,
        detail: `recap's server in ${file} runs ${command![0]}, not this Node (${process.execPath})`,
        fix: `recap install ${agent} --mcp${scopeFlag(scope)}`,
      };
    }
    return { name, ok: true, detail: `recap's server (search, timeline, get, decisions) is registered in ${file}` };
  }
  return { name, ok: true, detail: `recap's MCP server is not registered (optional): recap install ${agent} --mcp adds it` };
}
