// Where Codex CLI keeps recap's MCP server: an `[mcp_servers.recap]` table in the user's
// config.toml (or the project's .codex/config.toml, which Codex reads in a trusted project)
// with `command`, `args` and `env_vars`; its tools are mcp__recap__<tool>. Codex hands an MCP
// server only a few variables of its own (HOME, PATH, USER, ...) unless `env_vars` names
// more: recap's socket is found through XDG_RUNTIME_DIR or RECAP_SOCKET, so both are named.
// config.toml is the user's file: recap's table is appended or cut out as text, and every
// other byte stays as it was.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECAP_MCP_SERVER } from '../../events/recapTools.js';
import { realOr } from '../kit/files.js';
import { InstallError } from '../kit/installError.js';
import { commandAndArgs, type McpConfig, type McpFile } from '../kit/mcpServers.js';
import { configFile, readConfig, writeThroughLinks } from './install.js';
import { isTable, parseToml, tomlString, TomlError, type TomlDocument, type TomlTable, type TomlValue } from './toml.js';
import { sameValue } from './trustEntries.js';

/** The variables recap mcp needs to find the daemon's socket, forwarded by Codex when set. */
export const CODEX_MCP_ENV_VARS = ['XDG_RUNTIME_DIR', 'RECAP_SOCKET'];

const SERVERS = 'mcp_servers';
const HINT = `write recap's server as an [${SERVERS}.${RECAP_MCP_SERVER}] table (or remove it), then run the command again (recap changed nothing)`;

/** A statement that belongs to recap's table: its header (or a sub-table's), or a pair under one. */
const inRecapTable = (path: string[]) => path.length >= 2 && path[0] === SERVERS && path[1] === RECAP_MCP_SERVER;

/**
 * What recap cannot edit as whole tables: `mcp_servers` written as a value, or recap's server
 * written as dotted keys, an inline table or an array of tables.
 */
function refuseOtherForms(doc: TomlDocument, file: string): void {
  for (const statement of doc.statements) {
    if (statement.kind === 'header') {
      if (statement.array && (statement.path[0] === SERVERS || inRecapTable(statement.path))) throw new InstallError(`${file} has [[${statement.path.join('.')}]]; ${HINT}`);
      continue;
    }
    const path = [...statement.table, ...statement.key];
    const ownTable = inRecapTable(statement.table);
    if (!ownTable && path[0] === SERVERS && (path.length === 1 || (path.length >= 2 && path[1] === RECAP_MCP_SERVER))) {
      throw new InstallError(`${file} sets ${path.join('.')} outside an [${SERVERS}.${RECAP_MCP_SERVER}] table; ${HINT}`);
    }
  }
}

/** The text without recap's table and its sub-tables (and the blank line before each header). */
function withoutRecap(text: string, doc: TomlDocument): string {
  const cuts: { start: number; end: number }[] = [];
  let inside = false;
  for (const statement of doc.statements) {
    if (statement.kind === 'header') inside = inRecapTable(statement.path);
    if (!inside) continue;
    let start = statement.start;
    if (statement.kind === 'header') {
      const before = text.lastIndexOf('\n', start - 2);
      if (start > 0 && /^[ \t]*\r?\n$/.test(text.slice(before + 1, start))) start = before + 1;
    }
    cuts.push({ start, end: statement.end });
  }
  let out = text;
  for (const cut of cuts.reverse()) out = out.slice(0, cut.start) + out.slice(cut.end);
  return out;
}

/** recap's table as TOML text. */
function tableText(entry: Record<string, unknown>, newline: string): string {
  const value = (v: unknown): string => (Array.isArray(v) ? `[${v.map(value).join(', ')}]` : tomlString(String(v)));
  const pairs = Object.entries(entry).map(([key, v]) => `${key} = ${value(v)}${newline}`);
  return `[${SERVERS}.${RECAP_MCP_SERVER}]${newline}${pairs.join('')}`;
}

/** The data without recap's server (and without an `mcp_servers` left empty by that). */
function withoutRecapData(data: TomlTable): TomlTable {
  const servers = data[SERVERS];
  if (!isTable(servers)) return data;
  const { [RECAP_MCP_SERVER]: _recap, ...others } = servers;
  const { [SERVERS]: _servers, ...rest } = data;
  return Object.keys(others).length > 0 ? { ...rest, [SERVERS]: others } : rest;
}

/** The edit read back: it must parse, keep all but recap's server, and hold the entry it means to. */
function verify(file: string, before: TomlDocument, after: string, entry: Record<string, unknown> | undefined): void {
  let doc: TomlDocument;
  try {
    doc = parseToml(after);
  } catch (error) {
    throw new Error(`recap's edit of ${file} would not parse (${(error as Error).message}); nothing was written`, { cause: error });
  }
  const servers = doc.data[SERVERS];
  const written = isTable(servers) ? servers[RECAP_MCP_SERVER] : undefined;
  const same = sameValue(withoutRecapData(before.data), withoutRecapData(doc.data)) && (entry === undefined ? written === undefined : sameValue(written!, entry as TomlValue));
  if (!same) throw new Error(`recap's edit of ${file} would change more than recap's MCP server; nothing was written`);
}

export const codexMcpServers: McpFile = {
  read(file) {
    if (!existsSync(file)) return undefined;
    try {
      const servers = parseToml(readFileSync(file, 'utf8')).data[SERVERS];
      return { ok: true, servers: isTable(servers) ? servers : {} };
    } catch (error) {
      if (!(error instanceof TomlError)) return { ok: false, problem: `cannot read ${file}: ${(error as Error).message}` };
      return { ok: false, problem: `${file} cannot be read as TOML (${error.message})` };
    }
  },
  write(file, entry) {
    const { text, doc } = readConfig(file);
    const servers = doc.data[SERVERS];
    const current = isTable(servers) ? servers[RECAP_MCP_SERVER] : undefined;
    if (entry === undefined ? current === undefined : current !== undefined && sameValue(current, entry as TomlValue)) return false;
    refuseOtherForms(doc, file);
    const newline = text.includes('\r\n') ? '\r\n' : '\n';
    let after = withoutRecap(text, doc);
    if (entry !== undefined) {
      if (after !== '' && !after.endsWith('\n')) after += newline;
      after += `${after === '' ? '' : newline}${tableText(entry, newline)}`;
    }
    verify(file, doc, after, entry);
    writeThroughLinks(file, after);
    return true;
  },
};

export const codexMcp: McpConfig = {
  file: (scope, project, env) => (scope === 'project' ? join(realOr(project), '.codex', 'config.toml') : configFile(env)),
  servers: codexMcpServers,
  entry: ([command, ...args]) => ({ command, args, env_vars: CODEX_MCP_ENV_VARS }),
  commandOf: commandAndArgs().commandOf,
};
